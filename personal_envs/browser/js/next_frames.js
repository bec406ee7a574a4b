() => new Promise(resolve => {
  const done = () => resolve(true);
  const timer = setTimeout(done, 100);
  requestAnimationFrame(() => { clearTimeout(timer); done(); });
})
