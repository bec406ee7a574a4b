(limit) => ((document.body && document.body.innerText) || '').slice(0, limit)
