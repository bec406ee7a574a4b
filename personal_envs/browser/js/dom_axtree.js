(options) => {
  // options: the longest name or value shown (compact format), or {bgym: true} for BrowserGym's format: nothing
  // clipped, layout tables and live-region properties shown, a text's parent name for BrowserGym's redundancy rule.
  const bg = typeof options === 'object' && options !== null && options.bgym === true;
  const maxText = bg ? 1e9 : options;
  const ATTR = 'data-pe-bid';
  const SVG_NS = 'http://www.w3.org/2000/svg';
  const clip = (s) => {
    // Chromium keeps no-break spaces in names; BrowserGym's text shows them.
    s = bg ? (s || '').replace(/[ \t\n\r\f]+/g, ' ').replace(/^ | $/g, '') : (s || '').replace(/\s+/g, ' ').trim();
    return s.length > maxText ? s.slice(0, maxText - 1) + '\u2026' : s;
  };
  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK', 'TITLE', 'BASE']);
  const TEXT_INPUT = {'': 'textbox', text: 'textbox', email: 'textbox', tel: 'textbox', url: 'textbox',
    password: 'textbox', search: 'searchbox', number: 'spinbutton', range: 'slider', checkbox: 'checkbox',
    radio: 'radio', button: 'button', submit: 'button', reset: 'button', image: 'button', file: 'button',
    color: 'button', date: 'textbox', 'datetime-local': 'textbox', month: 'textbox', time: 'textbox',
    week: 'textbox'};
  // Implicit roles that follow from the tag alone, under Chromium's role names.
  const TAG_ROLES = new Map(Object.entries({
    BUTTON: 'button', TEXTAREA: 'textbox', OPTION: 'option', OPTGROUP: 'group', H1: 'heading', H2: 'heading',
    H3: 'heading', H4: 'heading', H5: 'heading', H6: 'heading', UL: 'list', OL: 'list', MENU: 'list',
    DL: 'DescriptionList', DT: 'term', DD: 'definition', DFN: 'term', NAV: 'navigation',
    MAIN: 'main', ASIDE: 'complementary', FORM: 'form', SECTION: 'region', ARTICLE: 'article',
    DIALOG: 'dialog', P: 'paragraph', BLOCKQUOTE: 'blockquote', LABEL: 'LabelText', FIELDSET: 'group',
    LEGEND: 'Legend', FIGURE: 'figure', FIGCAPTION: 'Figcaption', DETAILS: 'group', PROGRESS: 'progressbar',
    METER: 'meter', HR: 'separator', IFRAME: 'Iframe', ADDRESS: 'group', HGROUP: 'group', SEARCH: 'search',
    OUTPUT: 'status', STRONG: 'strong', EM: 'emphasis', MARK: 'mark', CODE: 'code', DEL: 'deletion',
    S: 'deletion', INS: 'insertion', SUB: 'subscript', SUP: 'superscript', TIME: 'time', ABBR: 'Abbr',
    CAPTION: 'caption', BODY: 'none', HTML: 'none'}));
  // ARIA roles that Chromium reports under another name.
  const ROLE_ALIASES = new Map([['img', 'image'], ['directory', 'list'], ['text', 'generic']]);
  // Roles named from their content when nothing else names them (rows only inside grids, see nameOf).
  const CONTENT_NAMED = new Set(['button', 'link', 'heading', 'option', 'cell', 'gridcell', 'columnheader',
    'rowheader', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'treeitem', 'checkbox', 'radio', 'switch',
    'tooltip', 'DisclosureTriangle', 'term']);
  // Roles that take no name from the title attribute (ARIA prohibits naming them).
  const NO_TITLE_NAME = new Set(['generic', 'paragraph', 'strong', 'emphasis', 'mark', 'time', 'code', 'deletion',
    'insertion', 'subscript', 'superscript', 'caption', 'definition']);
  // Table parts of a layout table (a table used for layout only): shown as their content alone.
  const LAYOUT_ROLES = new Set(['LayoutTable', 'LayoutTableRow', 'LayoutTableCell']);
  // <header> and <footer> are page landmarks unless inside one of these.
  const SECTIONING = 'article, aside, main, nav, section, [role=article], [role=complementary], [role=main], '
    + '[role=navigation]';
  // Orientation of the roles that expose one ('': only when aria-orientation gives it).
  const ORIENTATION = new Map([['slider', 'horizontal'], ['scrollbar', 'vertical'], ['separator', 'horizontal'],
    ['tablist', 'horizontal'], ['toolbar', 'horizontal'], ['menu', 'vertical'], ['menubar', 'horizontal'],
    ['listbox', 'vertical'], ['tree', 'vertical'], ['radiogroup', '']]);
  // Range roles: [valuemin, valuemax] when aria-valuemin / aria-valuemax do not say.
  const RANGE_DEFAULTS = new Map([['slider', [0, 100]], ['scrollbar', [0, 100]], ['progressbar', [0, 100]],
    ['meter', [0, 100]], ['separator', [0, 100]], ['spinbutton', [0, 0]]]);
  // Items that say selected=false unless aria-selected says otherwise.
  const SELECTABLE = new Set(['tab', 'option', 'treeitem']);
  // Inside an <svg>, content that makes it a document (SvgRoot) rather than one image.
  const SVG_CONTENT = 'text, a, foreignObject, [aria-label], [aria-labelledby], [role], :not(svg) > title';
  const explicitRoleOf = (el) => {
    const role = el.getAttribute('role');
    return role ? role.trim().split(/\s+/)[0].toLowerCase() : '';
  };
  const num = (s) => {
    if (s === null || s === undefined || String(s).trim() === '') return null;
    const n = Number(s);
    return Number.isFinite(n) ? n : null;
  };
  // Chromium's data-table heuristics: a table is a data table (roles table / row / cell) when its markup or
  // styling says so, otherwise a layout table whose parts add nothing.
  const isDataTable = (table) => {
    if (table.isContentEditable) return true;
    if (table.caption || table.tHead || table.tFoot || table.getAttribute('summary')
        || table.querySelector(':scope > colgroup, :scope > col')) return true;
    const body = table.tBodies[0];
    if (!body) return false;
    const rows = body.rows;
    if (rows.length === 1 && rows[0].cells.length === 1 && rows[0].cells[0].colSpan <= 1) return false;
    if (rows.length >= 20) return true;
    const tableStyle = getComputedStyle(table);
    const spacing = tableStyle.borderSpacing.split(' ').map(parseFloat);
    const spaced = spacing[0] > 0 && (spacing.length < 2 || spacing[1] > 0);
    const tableBackground = tableStyle.backgroundColor;
    let valid = 0, bordered = 0, top = 0, bottom = 0, left = 0, right = 0, colored = 0;
    const rowColors = [];
    for (let r = 0; r < rows.length; r++) {
      for (const cell of rows[r].cells) {
        const rect = cell.getBoundingClientRect();
        if (rect.width < 1 || rect.height < 1) continue;
        valid++;
        if (cell.tagName === 'TH') return true;
        if (cell.getAttribute('headers') || cell.getAttribute('abbr') || cell.getAttribute('axis')
            || cell.getAttribute('scope')) return true;
        const style = getComputedStyle(cell);
        if (style.emptyCells === 'hide') return true;
        const t = parseFloat(style.borderTopWidth) > 0, b = parseFloat(style.borderBottomWidth) > 0;
        const l = parseFloat(style.borderLeftWidth) > 0, rt = parseFloat(style.borderRightWidth) > 0;
        if ((t && b) || (l && rt)) bordered++;
        top += t; bottom += b; left += l; right += rt;
        const background = style.backgroundColor;
        if (spaced && background !== tableBackground && background !== 'rgba(0, 0, 0, 0)') colored++;
        if (bordered >= 10 || colored >= 10) return true;
        if (r < 5 && r === rowColors.length) rowColors.push(getComputedStyle(rows[r]).backgroundColor);
      }
    }
    if (valid <= 1) return false;
    const half = Math.floor(valid / 2);
    if (Math.max(bordered, top, bottom, left, right, colored) >= half) return true;
    // Zebra stripes: odd rows differ from the first row, even rows repeat it.
    if (rowColors.length > 2) return rowColors.every((color, i) => (i % 2 === 0) === (color === rowColors[0]));
    return false;
  };
  const tableKinds = new Map();
  // 'data', 'grid' or 'layout' (presentational tables included) for the table that holds a table part.
  const tableKindOf = (el) => {
    const table = el.tagName === 'TABLE' ? el : el.closest('table');
    if (!table) return 'layout';
    let kind = tableKinds.get(table);
    if (kind === undefined) {
      const role = explicitRoleOf(table);
      kind = role === 'grid' || role === 'treegrid' ? 'grid' : role === 'table' ? 'data'
        : role ? 'layout' : isDataTable(table) ? 'data' : 'layout';
      tableKinds.set(table, kind);
    }
    return kind;
  };
  // An unscoped <th> heads its row when the row also holds a non-empty <td>, otherwise its column.
  const headerRole = (th) => {
    const scope = (th.getAttribute('scope') || '').toLowerCase();
    if (scope === 'row' || scope === 'rowgroup') return 'rowheader';
    if (scope === 'col' || scope === 'colgroup') return 'columnheader';
    for (const cell of th.parentElement ? th.parentElement.children : []) {
      if (cell.tagName === 'TD' && cell.firstChild) return 'rowheader';
    }
    return 'columnheader';
  };
  const inGrid = (el) => {
    const table = el.closest('table, [role=table], [role=grid], [role=treegrid]');
    const role = table ? explicitRoleOf(table) : '';
    return role === 'grid' || role === 'treegrid';
  };
  // A <li> of a <ul>/<ol>/<menu> whose role is not list: the item is presentational and its marker plain text.
  const inRoleChangedList = (li) => {
    const list = li.parentElement;
    return !!list && (list.tagName === 'UL' || list.tagName === 'OL' || list.tagName === 'MENU')
      && list.hasAttribute('role') && roleOf(list) !== 'list';
  };
  const ROMAN = [[1000, 'm'], [900, 'cm'], [500, 'd'], [400, 'cd'], [100, 'c'], [90, 'xc'], [50, 'l'], [40, 'xl'],
    [10, 'x'], [9, 'ix'], [5, 'v'], [4, 'iv'], [1, 'i']];
  const BULLETS = {disc: '•', circle: '◦', square: '■'};
  // The text of a list item's marker ('•', '3.', 'c.', 'iv.'), from its list-style-type and ordinal.
  const markerText = (li, type) => {
    if (BULLETS[type]) return BULLETS[type];
    if (/^["']/.test(type)) return clip(type.slice(1, -1));
    const list = li.parentElement;
    const items = Array.from(list.children).filter(item => item.tagName === 'LI');
    const reversed = list.tagName === 'OL' && list.reversed;
    let n = list.tagName === 'OL' && list.hasAttribute('start') ? list.start : reversed ? items.length : 1;
    // BrowserGym writes each <li>'s value property (0 unless set) into its value attribute.
    if (bg) return String(li.value) + '.';
    for (const item of items) {
      if (item.hasAttribute('value')) n = item.value;
      if (item === li) break;
      n += reversed ? -1 : 1;
    }
    let text = String(n);
    const letters = /alpha|latin/.test(type) ? 'abcdefghijklmnopqrstuvwxyz'
      : type === 'lower-greek' ? 'αβγδεζηθικλμ'
        + 'νξοπρστυφχψω' : '';
    if (letters && n > 0) {
      text = '';
      for (let k = n; k > 0; k = Math.floor((k - 1) / letters.length)) text = letters[(k - 1) % letters.length] + text;
    } else if (/roman/.test(type) && n > 0 && n < 4000) {
      text = '';
      let rest = n;
      for (const [value, numeral] of ROMAN) while (rest >= value) { text += numeral; rest -= value; }
    }
    if (type.startsWith('upper')) text = text.toUpperCase();
    if (type === 'decimal-leading-zero' && n >= 0 && n < 10) text = '0' + text;
    return text + '.';
  };
  const svgTitle = (el) => {
    const title = el.querySelector(':scope > title');
    return title ? title.textContent : '';
  };
  const svgRoleOf = (el) => {
    const tag = el.localName;
    if (tag === 'svg' && !el.ownerSVGElement) {
      if (el.querySelector(SVG_CONTENT)) return 'SvgRoot';
      return el.firstElementChild || el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby')
        ? 'image' : 'hidden';
    }
    if (tag === 'a' && (el.hasAttribute('href') || el.hasAttribute('xlink:href'))) return 'link';
    return tag === 'title' || tag === 'desc' ? 'hidden' : 'generic';
  };
  // role=none is overridden on focusable elements and on elements with global ARIA attributes.
  const presentationOverridden = (el) => {
    if (el.tabIndex >= 0 || el.hasAttribute('tabindex')) return true;
    for (const attr of el.attributes) if (attr.name.startsWith('aria-') && attr.name !== 'aria-hidden') return true;
    return false;
  };
  const roleOf = (el) => {
    const explicit = explicitRoleOf(el);
    if ((explicit === 'none' || explicit === 'presentation') && !presentationOverridden(el)) return 'none';
    if (explicit && explicit !== 'none' && explicit !== 'presentation') return ROLE_ALIASES.get(explicit) || explicit;
    if (el.namespaceURI === SVG_NS) return svgRoleOf(el);
    const tag = el.tagName;
    switch (tag) {
      case 'A': case 'AREA': return el.hasAttribute('href') ? 'link' : 'generic';
      case 'INPUT': {
        const type = (el.getAttribute('type') || '').toLowerCase();
        if (type === 'hidden') return 'hidden';
        if (el.hasAttribute('list') && (TEXT_INPUT[type] || 'textbox') === 'textbox') return 'combobox';
        return TEXT_INPUT[type] || 'textbox';
      }
      case 'SELECT': return (el.multiple || el.size > 1) ? 'listbox' : 'combobox';
      case 'IMG': return el.getAttribute('alt') === '' && !bg ? 'none' : 'image';
      case 'LI': return inRoleChangedList(el) ? 'none' : 'listitem';
      case 'HEADER': return el.closest(SECTIONING) ? 'sectionheader' : 'banner';
      case 'FOOTER': return el.closest(SECTIONING) ? 'sectionfooter' : 'contentinfo';
      case 'SUMMARY': {
        const details = el.parentElement;
        return details && details.tagName === 'DETAILS' && details.querySelector(':scope > summary') === el
          ? 'DisclosureTriangle' : 'generic';
      }
      case 'TABLE': return tableKindOf(el) === 'layout' ? 'LayoutTable' : 'table';
      case 'TR': return tableKindOf(el) === 'layout' ? 'LayoutTableRow' : 'row';
      case 'TD': {
        const kind = tableKindOf(el);
        return kind === 'layout' ? 'LayoutTableCell' : kind === 'grid' ? 'gridcell' : 'cell';
      }
      case 'TH': return tableKindOf(el) === 'layout' ? 'LayoutTableCell' : headerRole(el);
      case 'THEAD': case 'TFOOT': return tableKindOf(el) === 'layout' ? 'generic' : 'rowgroup';
      // BrowserGym's marks (ARIA attributes on every element) bring a data table's <tbody> into the tree.
      case 'TBODY': return bg && tableKindOf(el) !== 'layout' ? 'rowgroup' : 'generic';
      default: return TAG_ROLES.get(tag) || 'generic';
    }
  };
  // [visibility, computed style]: 'none' drops the subtree, 'children' drops the element but keeps descendants
  // that are visible again.  display: contents elements have no box but keep their role and children.
  const NOT_SHOWN = ['none', null];
  const shown = (el) => {
    if (el.getAttribute('aria-hidden') === 'true') return NOT_SHOWN;
    const tag = el.tagName;
    const option = tag === 'OPTION' || tag === 'OPTGROUP';
    if (typeof el.checkVisibility === 'function' && !el.checkVisibility()) {
      if (option) return ['all', null];
      // Boxless but shown: display: contents (which form controls and images cannot have).
      if (tag === 'INPUT' || tag === 'SELECT' || tag === 'TEXTAREA' || tag === 'IMG') return NOT_SHOWN;
      const style = getComputedStyle(el);
      if (style.display !== 'contents') return NOT_SHOWN;
      return [style.visibility === 'hidden' || style.visibility === 'collapse' ? 'children' : 'all', style];
    }
    const style = getComputedStyle(el);
    if (style.display === 'none') return option ? ['all', style] : NOT_SHOWN;
    return [style.visibility === 'hidden' || style.visibility === 'collapse' ? 'children' : 'all', style];
  };
  // Inside a name computed from content these contribute their own name (or nothing), not their content.
  const NAME_BARRIERS = new Set(['article', 'main', 'banner', 'complementary', 'search', 'status', 'dialog',
    'alertdialog', 'figure', 'blockquote', 'note', 'toolbar', 'tablist', 'menu', 'menubar', 'tree', 'treegrid',
    'listbox', 'table', 'grid', 'navigation', 'region', 'form', 'separator', 'application', 'log', 'alert',
    'tabpanel', 'radiogroup', 'marquee', 'timer', 'feed', 'combobox', 'document']);
  const BARRIER_TAGS = new Set(['ARTICLE', 'MAIN', 'HEADER', 'ASIDE', 'SEARCH', 'OUTPUT', 'DIALOG', 'FIGURE',
    'BLOCKQUOTE', 'TABLE', 'FIELDSET', 'NAV', 'SECTION', 'FORM', 'HR']);
  const VALUE_ROLES = new Set(['slider', 'spinbutton', 'scrollbar', 'progressbar', 'meter']);
  // What a form control adds to a name computed from content (its value, for text fields and ranges).
  const controlText = (el) => {
    const tag = el.tagName;
    const aria = el.getAttribute('aria-label') || '';
    if (tag === 'SELECT') return el.selectedOptions[0] ? el.selectedOptions[0].label : '';
    if (tag === 'TEXTAREA') return el.value || aria;
    if (tag === 'PROGRESS') return el.hasAttribute('value') ? String(Math.fround(el.value)) : '';
    if (tag === 'METER') return String(Math.fround(el.value));
    const type = (el.getAttribute('type') || '').toLowerCase();
    if (type === 'hidden') return '';
    if (type === 'submit' || type === 'reset' || type === 'button' || type === 'image') {
      return aria || el.value || (type === 'submit' || type === 'image' ? 'Submit' : type === 'reset' ? 'Reset' : '');
    }
    if (['checkbox', 'radio', 'file', 'color', 'date', 'datetime-local', 'month', 'time', 'week'].includes(type)) {
      return aria;
    }
    return (type === 'password' ? '•'.repeat(Math.min(el.value.length, 40)) : el.value) || aria;
  };
  const textOf = (node, depth) => {
    if (depth > 30) return '';
    if (node.nodeType === 3) return node.nodeValue;
    if (node.nodeType !== 1 || SKIP.has(node.tagName)) return '';
    const el = node;
    const tag = el.tagName;
    if (el.getAttribute('aria-hidden') === 'true') return '';
    if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || tag === 'PROGRESS' || tag === 'METER') {
      if (depth === 0) return ' ' + (el.value || '') + ' ';
      const visible = typeof el.checkVisibility !== 'function' || el.checkVisibility({visibilityProperty: true});
      return visible ? ' ' + controlText(el) + ' ' : '';
    }
    if (el.getAttribute('aria-label')) return ' ' + el.getAttribute('aria-label') + ' ';
    if (tag === 'IMG' || tag === 'AREA') return ' ' + (el.getAttribute('alt') || '') + ' ';
    if (el.namespaceURI === SVG_NS) {
      if (el.localName === 'title' || el.localName === 'desc') return '';
      if (el.localName === 'svg' && !el.ownerSVGElement && svgTitle(el)) return ' ' + svgTitle(el) + ' ';
    }
    if (depth > 0 && (BARRIER_TAGS.has(tag) || el.hasAttribute('role'))) {
      const role = roleOf(el);
      if (VALUE_ROLES.has(role)) return ' ' + (el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow') || '') + ' ';
      if (NAME_BARRIERS.has(role) || (role === 'group' && (tag === 'FIELDSET' || el.hasAttribute('role')))) {
        const name = nameOf(el, role);
        // An unnamed region (or ARIA form) is a plain container whose content counts.
        if (name || !(role === 'region' || (role === 'form' && tag !== 'FORM'))) return ' ' + name + ' ';
      }
    }
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.visibility === 'hidden') return '';
    const block = style.display !== 'inline' && style.display !== 'contents';
    let text = '';
    const children = tag === 'DETAILS' && !el.open ? [el.querySelector(':scope > summary')].filter(Boolean)
      : el.shadowRoot ? el.shadowRoot.childNodes : el.childNodes;
    for (const child of children) {
      text += textOf(child, depth + 1);
      if (text.length > maxText * 4) break;
    }
    return block ? ' ' + text + ' ' : text;
  };
  const byIds = (ids) => ids.split(/\s+/).map(id => document.getElementById(id)).filter(Boolean)
    .map(el => el.getAttribute('aria-label') || textOf(el, 0)).join(' ');
  const labelsOf = (el) => {
    const labels = el.labels ? Array.from(el.labels).filter(label => !label.hasAttribute('role')) : [];
    return labels.map(label => {
      if (label.getAttribute('aria-label')) return label.getAttribute('aria-label');
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
    if (tag === 'BUTTON' || tag === 'OUTPUT') { const label = clip(labelsOf(el)); if (label) return label; }
    if (el.namespaceURI === SVG_NS && el.localName === 'svg') { const title = clip(svgTitle(el)); if (title) return title; }
    if (tag === 'FIELDSET') { const legend = el.querySelector(':scope > legend'); if (legend) return clip(textOf(legend, 0)); }
    if (tag === 'TABLE') {
      const caption = el.querySelector(':scope > caption');
      const text = caption ? clip(textOf(caption, 0)) : clip(el.getAttribute('summary'));
      if (text) return text;
    }
    if (tag === 'OPTION') return clip(el.label || el.text);
    if (CONTENT_NAMED.has(role) || (role === 'row' && inGrid(el))) {
      const text = clip(textOf(el, 0));
      if (text) return text;
    }
    return NO_TITLE_NAME.has(role) ? '' : clip(el.getAttribute('title') || '');
  };
  const valueOf = (el, role) => {
    const tag = el.tagName;
    if (tag === 'INPUT') {
      const type = (el.getAttribute('type') || '').toLowerCase();
      if (['checkbox', 'radio', 'button', 'submit', 'reset', 'image', 'file', 'hidden'].includes(type)) return '';
      if (type === 'password') return '\u2022'.repeat(bg ? el.value.length : Math.min(el.value.length, 40));
      if (bg && (type === 'range' || type === 'number')) return el.value === '' ? '' : Number(el.value);
      return bg ? el.value : clip(el.value);
    }
    if (tag === 'TEXTAREA') return bg ? el.value : clip(el.value);
    if (tag === 'SELECT') return clip(el.selectedOptions[0] ? el.selectedOptions[0].label : '');
    // Chromium keeps <progress> and <meter> numbers as 32-bit floats.
    if (tag === 'PROGRESS') return el.hasAttribute('value') ? String(Math.fround(el.value)) : '';
    if (tag === 'METER') return String(Math.fround(el.value));
    if (bg && VALUE_ROLES.has(role)) {
      const now = el.getAttribute('aria-valuenow');
      return now !== null && num(now) !== null ? num(now) : '';
    }
    // The root of an editable region carries its text as value.
    if ((role === 'textbox' || role === 'generic') && el.isContentEditable
        && !(el.parentElement && el.parentElement.isContentEditable)) return clip(el.textContent);
    if (role === 'textbox' || role === 'searchbox') return clip(el.textContent);
    const now = el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow');
    return now ? clip(now) : '';
  };
  // [valuemin, valuemax] of a range widget, or null.
  const rangeOf = (el, role, focusable) => {
    const tag = el.tagName;
    if (tag === 'INPUT') {
      const type = (el.getAttribute('type') || '').toLowerCase();
      const min = num(el.getAttribute('min')), max = num(el.getAttribute('max'));
      if (type === 'range' && role === 'slider') return [min ?? 0, Math.max(max ?? 100, min ?? 0)];
      if (type === 'number' && role === 'spinbutton') return [min ?? 0, max ?? 0];
    }
    if (tag === 'PROGRESS' && role === 'progressbar') return [0, Math.fround(el.max)];
    if (tag === 'METER' && role === 'meter') return [Math.fround(el.min), Math.fround(el.max)];
    const defaults = RANGE_DEFAULTS.get(role);
    if (!defaults || (role === 'separator' && !focusable)) return null;
    return [num(el.getAttribute('aria-valuemin')) ?? defaults[0], num(el.getAttribute('aria-valuemax')) ?? defaults[1]];
  };
  const active = (() => {
    let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    return a;
  })();
  const INTERACTIVE = new Set(['button', 'link', 'textbox', 'searchbox', 'checkbox', 'radio', 'combobox',
    'listbox', 'option', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'slider', 'spinbutton', 'switch', 'tab',
    'treeitem', 'DisclosureTriangle']);
  const propsOf = (el, role, style, focusable) => {
    const props = {};
    if (el === active) props.focused = true;
    const disabled = (typeof el.matches === 'function' && el.matches(':disabled'))
      || el.getAttribute('aria-disabled') === 'true';
    if (disabled) props.disabled = true;
    if (el.required || el.getAttribute('aria-required') === 'true') props.required = true;
    if ((el.readOnly && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA'))
        || el.getAttribute('aria-readonly') === 'true') props.readonly = true;
    if (el.tagName === 'SELECT' && el.multiple) props.multiselectable = true;
    if ((el.tagName === 'DIALOG' && el.open && el.matches(':modal'))
        || ((role === 'dialog' || role === 'alertdialog') && el.getAttribute('aria-modal') === 'true')) {
      props.modal = true;
    }
    const type = (el.getAttribute('type') || '').toLowerCase();
    if (el.tagName === 'INPUT' && (type === 'checkbox' || type === 'radio')) {
      props.checked = el.indeterminate ? 'mixed' : String(el.checked);
    } else if (el.hasAttribute('aria-checked')) props.checked = el.getAttribute('aria-checked');
    if (el.hasAttribute('aria-pressed')) props.pressed = el.getAttribute('aria-pressed');
    if (el.tagName === 'OPTION') props.selected = String(el.selected);
    else if (el.hasAttribute('aria-selected')) props.selected = el.getAttribute('aria-selected');
    else if (SELECTABLE.has(role)) props.selected = 'false';
    if (el.tagName === 'SELECT' && role === 'combobox') props.expanded = 'false';
    else if (el.hasAttribute('aria-expanded')) props.expanded = el.getAttribute('aria-expanded');
    else if (role === 'DisclosureTriangle' && el.tagName === 'SUMMARY') props.expanded = String(el.parentElement.open);
    if (role === 'listitem') {
      let level = 0;
      for (let up = el.parentElement; up; up = up.parentElement) {
        if (['UL', 'OL', 'MENU'].includes(up.tagName) || (el.tagName !== 'LI' && explicitRoleOf(up) === 'list')) level++;
      }
      props.level = Math.max(level, 1);
    }
    if (role === 'heading') {
      props.level = Number(el.getAttribute('aria-level')) || Number(el.tagName.slice(1)) || 2;
    }
    if (role === 'treeitem') {
      let level = 1;
      for (let up = el.parentElement; up && explicitRoleOf(up) !== 'tree'; up = up.parentElement) {
        if (explicitRoleOf(up) === 'group') level++;
      }
      props.level = Number(el.getAttribute('aria-level')) || level;
    }
    if (el.hasAttribute('aria-invalid') && el.getAttribute('aria-invalid') !== 'false') {
      props.invalid = el.getAttribute('aria-invalid');
    }
    const range = rangeOf(el, role, focusable);
    if (range) { props.valuemin = range[0]; props.valuemax = range[1]; }
    if (ORIENTATION.has(role)) {
      const aria = (el.getAttribute('aria-orientation') || '').toLowerCase();
      let orientation = ORIENTATION.get(role);
      if (aria === 'horizontal' || aria === 'vertical') orientation = aria;
      else if (el.tagName === 'INPUT' && style) {
        orientation = style.writingMode.startsWith('vertical') ? 'vertical' : 'horizontal';
      }
      if (orientation) props.orientation = orientation;
    }
    if (role === 'link' && el.href) {
      let href = el.href;
      if (typeof href !== 'string') {
        // An SVG link: its href is an animated value, resolved here.
        try { href = new URL(href.baseVal || el.getAttribute('xlink:href') || '', document.baseURI).href; }
        catch (e) { href = ''; }
      }
      if (href) props.url = clip(href);
    }
    if (bg) bgProps(el, role, props);
    if (bg && role === 'image' && el.tagName === 'IMG' && el.currentSrc) props.url = el.currentSrc;
    return props;
  };
  // Live regions, pop-ups, multiselectable containers and range texts, as Chromium's AX tree reports them.
  const LIVE_ROLES = new Map([['alert', ['assertive', true]], ['status', ['polite', true]], ['log', ['polite', false]],
    ['timer', ['off', false]], ['marquee', ['off', false]]]);
  const MULTISELECT_ROLES = new Set(['listbox', 'tablist', 'grid', 'tree', 'treegrid']);
  const bgProps = (el, role, props) => {
    const implicit = LIVE_ROLES.get(role);
    const live = el.getAttribute('aria-live');
    if (implicit || (live && live !== 'off')) {
      props.live = live || implicit[0];
      props.atomic = el.hasAttribute('aria-atomic') ? el.getAttribute('aria-atomic') === 'true' : !!(implicit && implicit[1]);
      props.relevant = el.getAttribute('aria-relevant') || 'additions text';
      if (el.getAttribute('aria-busy') === 'true') props.busy = 1;
    }
    if (el.hasAttribute('aria-keyshortcuts')) props.keyshortcuts = el.getAttribute('aria-keyshortcuts');
    const popup = (el.getAttribute('aria-haspopup') || '').toLowerCase();
    if (el.tagName === 'SELECT' && role === 'combobox') props.hasPopup = 'menu';
    else if (popup && popup !== 'false') props.hasPopup = popup === 'true' ? 'menu' : popup;
    if (MULTISELECT_ROLES.has(role)) {
      props.multiselectable = (el.tagName === 'SELECT' && el.multiple) || el.getAttribute('aria-multiselectable') === 'true';
    }
    if ((role === 'slider' || role === 'spinbutton') && el.tagName === 'INPUT' && el.value !== '') props.valuetext = el.value;
  };
  // A <label> holding only text and the checkbox or radio it names: Chromium folds it into the control.
  const isFoldedLabel = (label) => {
    const control = label.control;
    if (!control || control.tagName !== 'INPUT' || label.hasAttribute('role') || label.hasAttribute('tabindex')
        || label.hasAttribute('aria-label') || label.hasAttribute('aria-labelledby')) return false;
    const type = (control.getAttribute('type') || '').toLowerCase();
    if ((type !== 'checkbox' && type !== 'radio') || control.hasAttribute('aria-label')
        || control.hasAttribute('aria-labelledby')) return false;
    if (typeof control.checkVisibility === 'function' && !control.checkVisibility()) return false;
    for (const child of label.childNodes) if (child.nodeType === 1 && child !== control) return false;
    return true;
  };
  // An empty <p> or <address> (no rendered content, nothing that makes it addressable) is left out.
  const isEmptyBlock = (el, style) => {
    if (style.display !== 'contents') {
      for (const child of el.childNodes) {
        if (child.nodeType === 3 ? /[^ \t\n\r\f]/.test(child.nodeValue)
          : child.nodeType === 1 && getComputedStyle(child).display !== 'none') return false;
      }
    }
    if (el.id || el.hasAttribute('title') || el.hasAttribute('tabindex') || el.isContentEditable
        || style.position !== 'static') return false;
    for (const attr of el.attributes) if (attr.name.startsWith('aria-') || attr.name.startsWith('on')) return false;
    return true;
  };
  // A space next to nothing, a control, an image or a block is left out of Chromium's tree.
  const REPLACED = new Set(['INPUT', 'SELECT', 'TEXTAREA', 'BUTTON', 'IMG', 'VIDEO', 'CANVAS', 'IFRAME', 'BR',
    'OBJECT', 'EMBED', 'METER', 'PROGRESS']);
  const ignorableNeighbour = (sibling, direction) => {
    while (sibling && (sibling.nodeType === 8 || (sibling.nodeType === 1 && SKIP.has(sibling.tagName)))) {
      sibling = sibling[direction];
    }
    if (!sibling) return true;
    if (sibling.nodeType === 3) return !/[^ \t\n\r\f]/.test(sibling.nodeValue);
    if (sibling.nodeType !== 1 || REPLACED.has(sibling.tagName)) return true;
    return getComputedStyle(sibling).display !== 'inline';
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
      let text = clip(node.nodeValue);
      if (bg && !text && node.nodeValue) {
        // A space between inline boxes is a text of its own in Chromium's tree, a collapsed one is not.
        const range = document.createRange();
        range.selectNodeContents(node);
        if (!Array.from(range.getClientRects()).some(r => r.width > 0)) return;
        if (ignorableNeighbour(node.previousSibling, 'previousSibling')
            || ignorableNeighbour(node.nextSibling, 'nextSibling')) return;
        text = ' ';
      }
      if (bg ? text && !parentTexts[0].includes(text) : text && !parentTexts.includes(text)) {
        out.push([depth, '', 'StaticText', text, '', {}, null, false]);
      }
      return;
    }
    if (node.nodeType !== 1 || SKIP.has(node.tagName)) return;
    const el = node;
    const [visibility, style] = shown(el);
    if (visibility === 'none') return;
    let role = roleOf(el);
    if (role === 'hidden') return;
    const bid = el.getAttribute(ATTR) || '';
    const focusable = el.tabIndex >= 0 && el.getAttribute('tabindex') !== null;
    const clickable = el.hasAttribute('onclick');
    let name = '';
    let folded = false;
    let emit = visibility === 'all' && role !== 'none' && role !== 'generic' && (bg || !LAYOUT_ROLES.has(role));
    if (bg && visibility === 'all' && LAYOUT_ROLES.has(role)) {
      name = role === 'LayoutTableCell' ? clip(textOf(el, 0)) : '';
    } else if (bg && visibility === 'all' && role === 'generic') {
      // BrowserGym prints a generic node only when it has properties.
      const props = propsOf(el, role, getComputedStyle(el), focusable);
      emit = Object.keys(props).some(key => props[key] !== false);
      if (emit) name = nameOf(el, role) || (focusable || clickable ? clip(textOf(el, 0)) : '');
    } else if (!bg && visibility === 'all' && (role === 'generic' || role === 'none') && (focusable || clickable)) {
      role = 'generic';
      name = clip(textOf(el, 0));
      emit = true;
    } else if (emit) {
      name = nameOf(el, role);
      if (!name && (role === 'region' || (role === 'form' && el.tagName !== 'FORM'))) emit = false;
      else if ((el.tagName === 'P' || el.tagName === 'ADDRESS') && !explicitRoleOf(el) && !bg
               && isEmptyBlock(el, style)) emit = false;
      // BrowserGym's ARIA marks keep such a label in the tree, still without its text.
      else if (role === 'LabelText' && isFoldedLabel(el)) { emit = bg; folded = true; }
    } else if (visibility === 'all' && role === 'generic'
               && (el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby'))) {
      name = nameOf(el, role);
      emit = name !== '';
    }
    let childDepth = depth;
    let texts = parentTexts;
    if (emit) {
      const props = propsOf(el, role, style, focusable);
      const value = valueOf(el, role);
      const interactive = !props.disabled && (INTERACTIVE.has(role) || focusable || clickable
        || el.isContentEditable);
      out.push([depth, bid, role, name, value, props, bid ? box(el) : null, interactive]);
      childDepth = depth + 1;
      texts = bg ? [name] : [name, value];
      if (el.tagName === 'SELECT' && role === 'combobox') {
        out.push([childDepth, '', 'MenuListPopup', '', '', {}, null, false]);
        childDepth += 1;
      }
    }
    if (bg && emit && (el.tagName === 'TEXTAREA' || el.tagName === 'INPUT')) {
      // Chromium shows a field's text as static text inside it (one per line).
      const type = (el.getAttribute('type') || '').toLowerCase();
      if (!['checkbox', 'radio', 'button', 'submit', 'reset', 'image', 'file', 'hidden', 'range', 'color'].includes(type)) {
        const shown = type === 'password' ? '\u2022'.repeat(el.value.length) : el.value;
        for (const line of shown.split('\n')) if (line) out.push([childDepth, '', 'StaticText', line, '', {}, null, false]);
      }
    }
    if (el.tagName === 'TEXTAREA' || (el.tagName === 'INPUT')) return;
    // An <svg> drawing is one image; its shapes add nothing.
    if (role === 'image' && el.namespaceURI === SVG_NS && !el.hasAttribute('role')) return;
    if (el.tagName === 'LI' && inRoleChangedList(el) && visibility === 'all' && style.display === 'list-item'
        && style.listStyleType !== 'none' && style.listStyleImage === 'none') {
      const marker = markerText(el, style.listStyleType);
      if (!texts.includes(marker)) out.push([childDepth, '', 'StaticText', marker, '', {}, null, false]);
    } else if (bg && emit && role === 'listitem' && visibility === 'all' && style.display === 'list-item'
               && style.listStyleType !== 'none' && style.listStyleImage === 'none') {
      // Chromium's list marker node (its text repeats its name and is not printed).
      out.push([childDepth, '', 'ListMarker', markerText(el, style.listStyleType) + ' ', '', {}, null, false]);
    }
    let children = childrenOf(el);
    if (el.tagName === 'TABLE' && (el.caption || el.tHead || el.tFoot)
        && (style.display === 'table' || style.display === 'inline-table')) {
      // Laid out as a table: caption first, then the header rows, the body, and the footer rows last.
      const head = [el.caption, el.tHead].filter(Boolean);
      children = [...head, ...Array.from(children).filter(c => c !== el.tFoot && !head.includes(c)),
        ...(el.tFoot ? [el.tFoot] : [])];
    } else if (el.tagName === 'DETAILS') {
      // Chromium adds a 'Details' disclosure triangle when there is no <summary>; closed, only it shows.
      const summary = el.querySelector(':scope > summary');
      if (!summary && emit) out.push([childDepth, '', 'DisclosureTriangle', 'Details', '', {}, null, false]);
      if (!el.open) children = summary ? [summary] : [];
    }
    if (bg && !emit) texts = [name];
    for (const child of children) visit(child, childDepth, texts, nodes, visibility !== 'all' || folded);
  };
  const nodes = {count: 0};
  const rootFocused = bg ? document.hasFocus() : !active || active === document.body || active === document.documentElement;
  const rootProps = rootFocused ? {focused: true} : {};
  if (bg) rootProps.url = document.URL;
  out.push([0, '', 'RootWebArea', bg ? document.title : clip(document.title), '', rootProps, null, false]);
  if (document.body) visit(document.body, 1, bg ? [''] : [], nodes, false);
  return {nodes: out, truncated: nodes.count > 20000};
}
