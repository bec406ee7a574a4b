"""JavaScript run inside pages: stamping stable element ids and inspecting one element before acting on it."""

from __future__ import annotations

#: Attribute that carries an element's bid.  Stays on the element for the life of the document.
BID_ATTRIBUTE = "data-pe-bid"

#: Stamps every element (open shadow roots included) that has no bid yet with the next free number, repairs
#: duplicated bids (cloned nodes), and returns the page facts an observation needs.
STAMP_BIDS_JS = """
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
"""

#: Describes the element with a given bid (or returns null): what it is and whether it can be acted on.
INSPECT_ELEMENT_JS = """
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
"""

#: Resolves at the next animation frame, or after 100 ms if no frame comes: a wheel scroll Playwright has delivered
#: is applied to the document by then (measured: ``scrollY`` moves after one frame, not before).
NEXT_FRAMES_JS = """
() => new Promise(resolve => {
  const done = () => resolve(true);
  const timer = setTimeout(done, 100);
  requestAnimationFrame(() => { clearTimeout(timer); done(); });
})
"""

#: Sets a long value directly (typing a megabyte through the input pipeline takes seconds) and fires the events
#: a framework listens to.
SET_VALUE_JS = """
(el, value) => {
  el.focus();
  if (el.isContentEditable) {
    el.textContent = value;
  } else {
    const proto = el.tagName === 'TEXTAREA' ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
    const setter = Object.getOwnPropertyDescriptor(proto, 'value').set;
    setter.call(el, value);
  }
  el.dispatchEvent(new InputEvent('input', {bubbles: true, inputType: 'insertText'}));
  el.dispatchEvent(new Event('change', {bubbles: true}));
}
"""

#: Walks the rendered DOM (after stamping bids) and returns one record per node an accessibility tree would
#: show: ``[depth, bid, role, name, value, props, bbox, interactive]``.  A close approximation of Chromium's AX
#: tree (implicit ARIA roles, accessible names from labels/aria/alt/content, states) that costs one evaluate and
#: stays fast on pages with megabytes of text, where Chromium's own tree (one node per text line) does not.
DOM_AXTREE_JS = """
(maxText) => {
  const ATTR = 'data-pe-bid';
  const clip = (s) => {
    s = (s || '').replace(/\\s+/g, ' ').trim();
    return s.length > maxText ? s.slice(0, maxText - 1) + '\\u2026' : s;
  };
  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK', 'TITLE', 'BASE']);
  const TEXT_INPUT = {'': 'textbox', text: 'textbox', email: 'textbox', tel: 'textbox', url: 'textbox',
    password: 'textbox', search: 'searchbox', number: 'spinbutton', range: 'slider', checkbox: 'checkbox',
    radio: 'radio', button: 'button', submit: 'button', reset: 'button', image: 'button', file: 'button',
    color: 'button', date: 'textbox', 'datetime-local': 'textbox', month: 'textbox', time: 'textbox',
    week: 'textbox'};
  const CONTENT_NAMED = new Set(['button', 'link', 'heading', 'option', 'cell', 'gridcell', 'columnheader',
    'rowheader', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'treeitem', 'checkbox', 'radio', 'switch',
    'tooltip', 'DisclosureTriangle', 'row', 'Legend', 'Caption', 'Figcaption']);
  const LANDMARK_SCOPES = 'article, aside, main, nav, section';
  const roleOf = (el) => {
    const explicit = (el.getAttribute('role') || '').trim().split(/\\s+/)[0];
    if (explicit && explicit !== 'none' && explicit !== 'presentation') return explicit;
    if (explicit) return 'none';
    const tag = el.tagName;
    switch (tag) {
      case 'A': case 'AREA': return el.hasAttribute('href') ? 'link' : 'generic';
      case 'BUTTON': return 'button';
      case 'INPUT': {
        const type = (el.getAttribute('type') || '').toLowerCase();
        if (type === 'hidden') return 'hidden';
        if (el.hasAttribute('list') && (TEXT_INPUT[type] || 'textbox') === 'textbox') return 'combobox';
        return TEXT_INPUT[type] || 'textbox';
      }
      case 'TEXTAREA': return 'textbox';
      case 'SELECT': return (el.multiple || el.size > 1) ? 'listbox' : 'combobox';
      case 'OPTION': return 'option';
      case 'OPTGROUP': return 'group';
      case 'H1': case 'H2': case 'H3': case 'H4': case 'H5': case 'H6': return 'heading';
      case 'IMG': return el.getAttribute('alt') === '' ? 'none' : 'image';
      case 'UL': case 'OL': case 'MENU': return 'list';
      case 'LI': return 'listitem';
      case 'DL': return 'list';
      case 'DT': return 'term';
      case 'DD': return 'definition';
      case 'NAV': return 'navigation';
      case 'MAIN': return 'main';
      case 'ASIDE': return 'complementary';
      case 'HEADER': return el.closest(LANDMARK_SCOPES) ? 'generic' : 'banner';
      case 'FOOTER': return el.closest(LANDMARK_SCOPES) ? 'generic' : 'contentinfo';
      case 'FORM': return 'form';
      case 'SECTION': return 'region';
      case 'ARTICLE': return 'article';
      case 'DIALOG': return 'dialog';
      case 'TABLE': return 'table';
      case 'TR': return 'row';
      case 'TD': return 'cell';
      case 'TH': return el.closest('thead') || el.getAttribute('scope') === 'col' ? 'columnheader'
        : (el.getAttribute('scope') === 'row' ? 'rowheader' : 'columnheader');
      case 'P': return 'paragraph';
      case 'BLOCKQUOTE': return 'blockquote';
      case 'LABEL': return 'LabelText';
      case 'FIELDSET': return 'group';
      case 'LEGEND': return 'Legend';
      case 'FIGURE': return 'figure';
      case 'FIGCAPTION': return 'Figcaption';
      case 'CAPTION': return 'Caption';
      case 'DETAILS': return 'group';
      case 'SUMMARY': return 'DisclosureTriangle';
      case 'PROGRESS': return 'progressbar';
      case 'METER': return 'meter';
      case 'HR': return 'separator';
      case 'IFRAME': return 'Iframe';
      case 'BODY': case 'HTML': return 'none';
      default: return el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)
        ? 'textbox' : 'generic';
    }
  };
  const shown = (el) => {
    if (el.getAttribute('aria-hidden') === 'true') return 'none';
    if (typeof el.checkVisibility === 'function' && !el.checkVisibility()) {
      return el.tagName === 'OPTION' || el.tagName === 'OPTGROUP' ? 'all' : 'none';
    }
    const style = getComputedStyle(el);
    if (style.display === 'none') return el.tagName === 'OPTION' || el.tagName === 'OPTGROUP' ? 'all' : 'none';
    return style.visibility === 'hidden' || style.visibility === 'collapse' ? 'children' : 'all';
  };
  const textOf = (node, depth) => {
    if (depth > 30) return '';
    if (node.nodeType === 3) return node.nodeValue;
    if (node.nodeType !== 1 || SKIP.has(node.tagName)) return '';
    const el = node;
    if (el.getAttribute('aria-hidden') === 'true') return '';
    if (el.getAttribute('aria-label')) return ' ' + el.getAttribute('aria-label') + ' ';
    if (el.tagName === 'IMG' || el.tagName === 'AREA') return ' ' + (el.getAttribute('alt') || '') + ' ';
    if (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA') return ' ' + (el.value || '') + ' ';
    if (el.tagName === 'SELECT') return ' ' + (el.selectedOptions[0] ? el.selectedOptions[0].label : '') + ' ';
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.visibility === 'hidden') return '';
    const block = style.display !== 'inline' && style.display !== 'contents';
    let text = '';
    for (const child of (el.shadowRoot ? el.shadowRoot.childNodes : el.childNodes)) {
      text += textOf(child, depth + 1);
      if (text.length > maxText * 4) break;
    }
    return block ? ' ' + text + ' ' : text;
  };
  const byIds = (ids) => ids.split(/\\s+/).map(id => document.getElementById(id)).filter(Boolean)
    .map(el => el.getAttribute('aria-label') || textOf(el, 0)).join(' ');
  const labelsOf = (el) => {
    const labels = el.labels ? Array.from(el.labels) : [];
    return labels.map(label => {
      let text = '';
      for (const child of label.childNodes) if (child !== el && !(child.contains && child.contains(el))) {
        text += textOf(child, 1);
      }
      return text;
    }).join(' ');
  };
  const nameOf = (el, role) => {
    const labelledby = el.getAttribute('aria-labelledby');
    if (labelledby) { const text = clip(byIds(labelledby)); if (text) return text; }
    const aria = clip(el.getAttribute('aria-label'));
    if (aria) return aria;
    const tag = el.tagName;
    if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || tag === 'METER' || tag === 'PROGRESS') {
      const type = (el.getAttribute('type') || '').toLowerCase();
      if (tag === 'INPUT' && ['button', 'submit', 'reset'].includes(type)) {
        return clip(el.value || (type === 'submit' ? 'Submit' : type === 'reset' ? 'Reset' : ''));
      }
      if (tag === 'INPUT' && type === 'image') return clip(el.getAttribute('alt') || el.value || 'Submit');
      const label = clip(labelsOf(el));
      if (label) return label;
      return clip(el.getAttribute('title') || el.getAttribute('placeholder') || '');
    }
    if (tag === 'IMG' || tag === 'AREA') return clip(el.getAttribute('alt') || el.getAttribute('title') || '');
    if (tag === 'FIELDSET') { const legend = el.querySelector(':scope > legend'); if (legend) return clip(textOf(legend, 0)); }
    if (tag === 'TABLE') { const caption = el.querySelector(':scope > caption'); if (caption) return clip(textOf(caption, 0)); }
    if (tag === 'FIGURE') { const cap = el.querySelector(':scope > figcaption'); if (cap) return clip(textOf(cap, 0)); }
    if (tag === 'OPTION') return clip(el.label || el.text);
    if (CONTENT_NAMED.has(role)) { const text = clip(textOf(el, 0)); if (text) return text; }
    return clip(el.getAttribute('title') || '');
  };
  const valueOf = (el, role) => {
    const tag = el.tagName;
    if (tag === 'INPUT') {
      const type = (el.getAttribute('type') || '').toLowerCase();
      if (['checkbox', 'radio', 'button', 'submit', 'reset', 'image', 'file', 'hidden'].includes(type)) return '';
      if (type === 'password') return '\\u2022'.repeat(Math.min(el.value.length, 40));
      return clip(el.value);
    }
    if (tag === 'TEXTAREA') return clip(el.value);
    if (tag === 'SELECT') return clip(el.selectedOptions[0] ? el.selectedOptions[0].label : '');
    if (tag === 'PROGRESS' || tag === 'METER') return String(el.value);
    if (role === 'textbox' && el.isContentEditable) return clip(el.textContent);
    const now = el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow');
    return now ? clip(now) : '';
  };
  const active = (() => {
    let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    return a;
  })();
  const INTERACTIVE = new Set(['button', 'link', 'textbox', 'searchbox', 'checkbox', 'radio', 'combobox',
    'listbox', 'option', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'slider', 'spinbutton', 'switch', 'tab',
    'treeitem', 'DisclosureTriangle']);
  const propsOf = (el, role) => {
    const props = {};
    if (el === active) props.focused = true;
    const disabled = (typeof el.matches === 'function' && el.matches(':disabled'))
      || el.getAttribute('aria-disabled') === 'true';
    if (disabled) props.disabled = true;
    if (el.required || el.getAttribute('aria-required') === 'true') props.required = true;
    if ((el.readOnly && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA'))
        || el.getAttribute('aria-readonly') === 'true') props.readonly = true;
    if (el.tagName === 'SELECT' && el.multiple) props.multiselectable = true;
    if (el.tagName === 'DIALOG' && el.open && el.matches(':modal')) props.modal = true;
    const type = (el.getAttribute('type') || '').toLowerCase();
    if (el.tagName === 'INPUT' && (type === 'checkbox' || type === 'radio')) {
      props.checked = el.indeterminate ? 'mixed' : String(el.checked);
    } else if (el.hasAttribute('aria-checked')) props.checked = el.getAttribute('aria-checked');
    if (el.hasAttribute('aria-pressed')) props.pressed = el.getAttribute('aria-pressed');
    if (el.tagName === 'OPTION') props.selected = String(el.selected);
    else if (el.hasAttribute('aria-selected')) props.selected = el.getAttribute('aria-selected');
    if (el.tagName === 'SELECT' && role === 'combobox') props.expanded = 'false';
    else if (el.hasAttribute('aria-expanded')) props.expanded = el.getAttribute('aria-expanded');
    else if (el.tagName === 'DETAILS') props.expanded = String(el.open);
    if (role === 'listitem' && el.tagName === 'LI') {
      let level = 0;
      for (let up = el.parentElement; up; up = up.parentElement) if (['UL', 'OL', 'MENU'].includes(up.tagName)) level++;
      props.level = Math.max(level, 1);
    }
    if (role === 'heading') {
      props.level = Number(el.getAttribute('aria-level')) || Number(el.tagName.slice(1)) || 2;
    }
    if (el.hasAttribute('aria-invalid') && el.getAttribute('aria-invalid') !== 'false') {
      props.invalid = el.getAttribute('aria-invalid');
    }
    if (el.hasAttribute('aria-haspopup') && el.getAttribute('aria-haspopup') !== 'false') {
      props.haspopup = el.getAttribute('aria-haspopup');
    }
    if (role === 'link' && el.href) props.url = clip(String(el.href));
    return props;
  };
  const out = [];
  const box = (el) => {
    const rects = el.getClientRects();
    if (!rects.length) return null;
    const r = el.getBoundingClientRect();
    return [r.x, r.y, r.width, r.height];
  };
  const childrenOf = (el) => {
    if (el.tagName === 'SLOT') {
      const assigned = el.assignedNodes({flatten: true});
      return assigned.length ? assigned : el.childNodes;
    }
    return el.shadowRoot ? el.shadowRoot.childNodes : el.childNodes;
  };
  const visit = (node, depth, parentTexts, nodes, textHidden) => {
    if (nodes.count++ > 20000) return;
    if (node.nodeType === 3) {
      if (textHidden) return;
      const text = clip(node.nodeValue);
      if (text && !parentTexts.includes(text)) out.push([depth, '', 'StaticText', text, '', {}, null, false]);
      return;
    }
    if (node.nodeType !== 1 || SKIP.has(node.tagName)) return;
    const el = node;
    const visibility = shown(el);
    if (visibility === 'none') return;
    let role = roleOf(el);
    if (role === 'hidden') return;
    const bid = el.getAttribute(ATTR) || '';
    const focusable = el.tabIndex >= 0 && el.getAttribute('tabindex') !== null;
    const clickable = el.hasAttribute('onclick');
    let name = '';
    let emit = visibility === 'all' && role !== 'none' && role !== 'generic';
    if (visibility === 'all' && (role === 'generic' || role === 'none') && (focusable || clickable)) {
      role = 'generic';
      name = clip(textOf(el, 0));
      emit = true;
    } else if (emit) {
      name = nameOf(el, role);
    }
    if (emit && role === 'region' && !name) emit = false;
    let childDepth = depth;
    let texts = parentTexts;
    if (emit) {
      const props = propsOf(el, role);
      const value = valueOf(el, role);
      const interactive = !props.disabled && (INTERACTIVE.has(role) || focusable || clickable
        || el.isContentEditable);
      out.push([depth, bid, role, name, value, props, bid ? box(el) : null, interactive]);
      childDepth = depth + 1;
      texts = [name, value];
      if (el.tagName === 'SELECT' && role === 'combobox') {
        out.push([childDepth, '', 'MenuListPopup', '', '', {}, null, false]);
        childDepth += 1;
      }
    }
    if (el.tagName === 'TEXTAREA' || (el.tagName === 'INPUT')) return;
    for (const child of childrenOf(el)) visit(child, childDepth, texts, nodes, visibility !== 'all');
  };
  const nodes = {count: 0};
  const rootFocused = !active || active === document.body || active === document.documentElement;
  out.push([0, '', 'RootWebArea', clip(document.title), '', rootFocused ? {focused: true} : {}, null, false]);
  if (document.body) visit(document.body, 1, [], nodes, false);
  return {nodes: out, truncated: nodes.count > 20000};
}
"""
