() => {
  // The elements BrowserGym flags for its set-of-marks overlay (its frame marking rules): the click at the
  // element's centre lands on it or inside it; it is a control, a link, a list item, a cell or an option, or has an
  // onclick handler or a pointer cursor; its box has an area of at least 20 px; it is not inside a button already
  // flagged, nor the only child of a flagged <span> with a role; a flagged element unflags its ancestors.
  const ATTR = 'data-pe-bid';
  const TAGS = new Set(['input', 'textarea', 'select', 'button', 'a', 'iframe', 'video', 'li', 'td', 'option']);
  const STANDARD = new Set(('a abbr acronym address applet area article aside audio b base basefont bdi bdo big '
    + 'blockquote body br button canvas caption center cite code col colgroup data datalist dd del details dfn dialog '
    + 'dir div dl dt em embed fieldset figcaption figure font footer form frame frameset h1 h2 h3 h4 h5 h6 head '
    + 'header hgroup hr html i iframe img input ins kbd label legend li link main map mark menu meta meter nav '
    + 'noframes noscript object ol optgroup option output p param picture pre progress q rp rt ruby s samp script '
    + 'search section select small source span strike strong style sub summary sup svg table tbody td template '
    + 'textarea tfoot th thead time title tr track tt u ul var video wbr').split(' '));
  const elements = [];
  const collect = (root) => {
    for (const el of root.querySelectorAll('*')) {
      elements.push(el);
      if (el.shadowRoot) collect(el.shadowRoot);
    }
  };
  collect(document);
  const pointAt = (x, y) => {
    let root = document, found = null, last = null;
    do {
      last = found;
      found = root.elementFromPoint(x, y);
      root = found && found.shadowRoot;
    } while (root && found !== last);
    return found;
  };
  const flagged = new Set();
  const buttons = [];
  for (const el of elements) {
    const tag = el.tagName.toLowerCase();
    if (!STANDARD.has(tag)) continue;
    const rect = el.getBoundingClientRect();
    const hit = pointAt((rect.left + rect.right) / 2, (rect.top + rect.bottom) / 2);
    if (!hit || !(hit === el || el.contains(hit))) continue;
    if (!(TAGS.has(tag) || el.onclick != null || getComputedStyle(el).cursor === 'pointer')) continue;
    if ((rect.right - rect.left) * (rect.bottom - rect.top) < 20) continue;
    if (buttons.some(button => button.contains(el))) continue;
    const parent = el.parentElement;
    if (parent && parent.tagName === 'SPAN' && parent.children.length === 1 && parent.getAttribute('role')
        && flagged.has(parent)) continue;
    flagged.add(el);
    if (el.matches('button, a, input[type="button"], div[role="button"]')) buttons.push(el);
    for (let up = parent; up; up = up.parentElement) flagged.delete(up);
  }
  return Array.from(flagged, el => el.getAttribute(ATTR)).filter(Boolean);
}
