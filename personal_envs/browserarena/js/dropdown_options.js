(el) => el.tagName.toLowerCase() === 'select'
  ? Array.from(el.options).map((o, i) => ({i, text: o.text, value: o.value}))
  : null
