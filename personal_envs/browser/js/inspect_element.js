(bid) => {
  const sel = '[data-pe-bid="' + CSS.escape(bid) + '"]';
  const find = (root) => {
    const hit = root.querySelector(sel);
    if (hit) return hit;
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot) { const inner = find(el.shadowRoot); if (inner) return inner; }
    }
    return null;
  };
  const el = find(document);
  if (!el) return null;
  const tag = el.tagName.toLowerCase();
  const style = window.getComputedStyle(el);
  const rect = el.getBoundingClientRect();
  let visible = rect.width > 0 && rect.height > 0 && style.visibility !== 'hidden' && style.visibility !== 'collapse';
  if (visible && typeof el.checkVisibility === 'function') visible = el.checkVisibility();
  const disabled = (typeof el.matches === 'function' && el.matches(':disabled'))
    || el.getAttribute('aria-disabled') === 'true';
  const type = (el.getAttribute('type') || '').toLowerCase();
  const nonText = ['button', 'checkbox', 'radio', 'submit', 'reset', 'file', 'image', 'hidden', 'range', 'color'];
  const editable = (tag === 'input' && !nonText.includes(type)) || tag === 'textarea' || el.isContentEditable;
  const readonly = el.readOnly === true || el.getAttribute('aria-readonly') === 'true';
  let options = [];
  if (tag === 'select') options = Array.from(el.options).map(o => [o.label || o.text, o.value]);
  const select = tag === 'option' ? el.closest('select') : null;
  const label = (el.getAttribute('aria-label') || el.innerText || el.value || '').toString().trim().slice(0, 60);
  return {tag, type, visible, disabled, editable, readonly, options, label,
          optionValue: tag === 'option' ? el.value : null,
          selectBid: select ? (select.getAttribute('data-pe-bid') || '') : ''};
}
