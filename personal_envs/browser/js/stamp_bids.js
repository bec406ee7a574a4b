() => {
  const ATTR = 'data-pe-bid';
  const elements = [];
  const collect = (root) => {
    for (const el of root.querySelectorAll('*')) {
      elements.push(el);
      if (el.shadowRoot) collect(el.shadowRoot);
    }
  };
  collect(document);
  const used = new Set();
  const fresh = [];
  for (const el of elements) {
    const bid = el.getAttribute(ATTR);
    if (bid === null || used.has(bid)) fresh.push(el); else used.add(bid);
  }
  let next = window.__personalEnvsNextBid || 1;
  for (const el of fresh) {
    while (used.has(String(next))) next += 1;
    el.setAttribute(ATTR, String(next));
    used.add(String(next));
    next += 1;
  }
  try {
    Object.defineProperty(window, '__personalEnvsNextBid', {value: next, writable: true, configurable: true,
                                                           enumerable: false});
  } catch (e) { /* frozen window: bids restart from the lowest free number next time */ }
  let active = document.activeElement;
  while (active && active.shadowRoot && active.shadowRoot.activeElement) active = active.shadowRoot.activeElement;
  const focused = active && active !== document.body && active !== document.documentElement
    ? (active.getAttribute(ATTR) || '') : '';
  let textChars = document.body ? document.body.textContent.length : 0;
  for (const field of document.querySelectorAll('textarea, input')) textChars += (field.value || '').length;
  return {focused, title: document.title, scrollX: window.scrollX, scrollY: window.scrollY,
          width: window.innerWidth, height: window.innerHeight, stamped: fresh.length, textChars};
}
