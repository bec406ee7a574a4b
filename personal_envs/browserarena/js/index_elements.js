(args) => {
  const ATTR = 'data-arena-index';
  for (const el of document.querySelectorAll('[' + ATTR + ']')) el.removeAttribute(ATTR);
  const vw = window.innerWidth, vh = window.innerHeight, expansion = args.expansion;
  const maxItems = args.maxItems;
  const ROLES = new Set(['button','link','checkbox','radio','tab','menuitem','switch','combobox','textbox','option',
    'slider','searchbox','menuitemcheckbox','menuitemradio','treeitem','spinbutton']);
  const SKIP = new Set(['SCRIPT','STYLE','NOSCRIPT','TEMPLATE','HEAD','META','LINK','SVG']);
  const items = [];
  let next = 0;
  const clean = (t, n) => (t || '').replace(/\s+/g, ' ').trim().slice(0, n);
  const styleOk = (el) => {
    const st = getComputedStyle(el);
    return st.display !== 'none' && st.visibility !== 'hidden' && parseFloat(st.opacity || '1') > 0;
  };
  const interactive = (el) => {
    const tag = el.tagName.toLowerCase();
    if (el.disabled) return false;
    if (tag === 'a') return el.hasAttribute('href') || el.hasAttribute('onclick');
    if (tag === 'input') return (el.type || '').toLowerCase() !== 'hidden';
    if (tag === 'button' || tag === 'select' || tag === 'textarea' || tag === 'summary') return true;
    const role = (el.getAttribute('role') || '').toLowerCase();
    if (ROLES.has(role)) return true;
    if (el.hasAttribute('onclick')) return true;
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return true;
    const tabindex = el.getAttribute('tabindex');
    return tabindex !== null && parseInt(tabindex, 10) >= 0;
  };
  const inRange = (r) => r.bottom >= -expansion && r.top <= vh + expansion && r.right >= 0 && r.left <= vw;
  const onTop = (el, r) => {
    const cx = r.left + Math.min(r.width, vw) / 2, cy = r.top + Math.min(r.height, vh) / 2;
    if (cx < 0 || cy < 0 || cx >= vw || cy >= vh) return true;
    const hit = document.elementFromPoint(cx, cy);
    if (!hit) return false;
    return hit === el || el.contains(hit) || hit.contains(el) || (hit.closest && hit.closest('label') &&
      hit.closest('label').contains(el));
  };
  const label = (el) => {
    const tag = el.tagName.toLowerCase();
    if (tag === 'input' || tag === 'textarea') {
      return clean(el.getAttribute('aria-label') || el.placeholder || el.title || el.name || '', 120);
    }
    if (tag === 'select') {
      const opt = el.options[el.selectedIndex];
      return clean(opt ? opt.text : '', 120);
    }
    return clean(el.innerText || el.getAttribute('aria-label') || el.title || el.getAttribute('alt') || '', 120);
  };
  const attrs = (el) => {
    const out = {};
    for (const name of ['type','name','placeholder','href','aria-label','role','title','alt']) {
      const v = el.getAttribute(name);
      if (v) out[name] = clean(v, name === 'href' ? 160 : 80);
    }
    const tag = el.tagName.toLowerCase();
    if ((tag === 'input' || tag === 'textarea') && el.value) out.value = clean(String(el.value), 80);
    if (tag === 'input' && (el.type === 'checkbox' || el.type === 'radio')) out.checked = el.checked ? 'true' : 'false';
    return out;
  };
  const walk = (node, insideIndexed) => {
    if (items.length >= maxItems) return;
    if (node.nodeType === Node.TEXT_NODE) {
      if (insideIndexed) return;
      const text = clean(node.textContent, 300);
      if (!text || !node.parentElement) return;
      const r = node.parentElement.getBoundingClientRect();
      if (r.width > 0 && r.height > 0 && inRange(r)) items.push({kind: 'text', text});
      return;
    }
    if (node.nodeType !== Node.ELEMENT_NODE) return;
    const el = node;
    if (SKIP.has(el.tagName.toUpperCase())) return;
    if (!styleOk(el)) {
      if (getComputedStyle(el).display === 'none') return;
    }
    let indexed = false;
    if (interactive(el) && styleOk(el)) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.height > 0 && inRange(r) && onTop(el, r)) {
        el.setAttribute(ATTR, String(next));
        items.push({kind: 'element', index: next, tag: el.tagName.toLowerCase(), text: label(el),
                    attrs: attrs(el), bbox: [r.left, r.top, r.width, r.height],
                    inViewport: r.bottom > 0 && r.top < vh});
        next += 1;
        indexed = true;
      }
    }
    for (const child of el.childNodes) walk(child, insideIndexed || indexed);
    if (el.shadowRoot) for (const child of el.shadowRoot.childNodes) walk(child, insideIndexed || indexed);
  };
  if (document.body) walk(document.body, false);
  const bodyText = (document.body ? document.body.innerText : '') || '';
  const lower = bodyText.toLowerCase();
  const visibleMatch = (selector) => Array.from(document.querySelectorAll(selector)).some((el) => {
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && styleOk(el);
  });
  const captcha = !!document.querySelector('[data-captcha]') ||
    !!document.querySelector('iframe[src*="recaptcha"], iframe[src*="hcaptcha"], iframe[src*="turnstile"]') ||
    /are you a (human|robot)|bot or not|verify you are human|not a robot|captcha/.test(lower);
  const banner = !!document.querySelector('[data-banner-visible]') ||
    visibleMatch('[id*="cookie" i], [class*="cookie" i], [id*="consent" i], [class*="consent" i], ' +
                 '[id*="gdpr" i], [role="dialog"][aria-modal="true"], [role="alertdialog"]');
  return {items, url: location.href, title: document.title, scrollY: window.scrollY,
          pageHeight: document.documentElement.scrollHeight, viewport: [vw, vh], captcha, banner,
          truncated: items.length >= maxItems};
}
