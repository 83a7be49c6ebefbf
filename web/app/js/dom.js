// Building the page: elements are made with h(), never from HTML strings, so text from the API
// can never become markup.

// h makes an element. attrs: "class", "data-*", "aria-*" and other attributes by name; a
// function under "on<event>" becomes a listener; true sets a boolean attribute, false, null and
// undefined leave it out. Children are nodes, strings, numbers or (nested) arrays of them.
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      el.addEventListener(name.slice(2), value);
    } else if (value === true) {
      el.setAttribute(name, '');
    } else {
      el.setAttribute(name, String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.append(c instanceof Node ? c : String(c));
  }
}

// replace puts next in place of prev and, when the keyboard focus was inside prev on an element
// with a data-focus key, moves it to the element with the same key in next: a refresh from polling
// must not throw the user's focus back to the top of the page.
export function replace(prev, next) {
  const active = document.activeElement;
  const key = prev.contains(active) ? active.closest('[data-focus]')?.dataset.focus : undefined;
  prev.replaceWith(next);
  if (key !== undefined) {
    const again = next.querySelector(`[data-focus="${CSS.escape(key)}"]`);
    if (again) again.focus({ preventScroll: true });
  }
}

// announce tells screen-reader users what an action did, through the page's polite live region.
export function announce(text) {
  const region = document.getElementById('announce');
  region.textContent = '';
  // A change after a tick is announced even when the text repeats.
  setTimeout(() => { region.textContent = text; }, 50);
}

// table makes a table whose cells carry their column's name, so that narrow screens can show
// each row as a card (see app.css). columns: [{ label, className }]; rows: <tr> elements.
export function table(id, caption, columns, rows, empty) {
  const body = h('tbody', {}, rows);
  if (rows.length === 0) {
    body.append(h('tr', { class: 'empty' }, h('td', { colspan: columns.length }, empty)));
  }
  for (const tr of rows) {
    [...tr.children].forEach((td, i) => {
      if (columns[i]) td.setAttribute('data-label', columns[i].label);
    });
  }
  return h('div', { class: 'table-wrap' },
    h('table', { id, class: 'list' },
      h('caption', { class: 'visually-hidden' }, caption),
      h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col', class: c.className }, c.label)))),
      body));
}

// field is a labelled form control with an optional hint.
export function field(label, control, hint) {
  const hintEl = hint ? h('span', { class: 'hint', id: `${control.id}-hint` }, hint) : null;
  if (hintEl) control.setAttribute('aria-describedby', hintEl.id);
  return h('div', { class: 'field' }, h('label', { for: control.id }, label), control, hintEl);
}
