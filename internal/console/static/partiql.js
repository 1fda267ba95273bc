// dynago console: the PartiQL editor's statement history, kept in this
// browser tab's sessionStorage: every statement run (with its
// parameters), newest first, without duplicates; selecting one puts it
// back in the editor. The run itself is a plain form POST (or htmx's),
// so the editor works without this script.
(function () {
  'use strict';
  const KEY = 'dynago.partiql.history';
  const MAX = 50;

  function load() {
    try {
      const h = JSON.parse(sessionStorage.getItem(KEY) || '[]');
      return Array.isArray(h) ? h.filter((e) => e && typeof e.statement === 'string') : [];
    } catch (_) {
      return [];
    }
  }

  function save(h) {
    try { sessionStorage.setItem(KEY, JSON.stringify(h.slice(0, MAX))); } catch (_) { /* storage full or off */ }
  }

  // remember puts entry first, dropping an equal earlier one.
  function remember(entry) {
    const same = (e) => e.statement === entry.statement && (e.parameters || '') === (entry.parameters || '');
    const h = load().filter((e) => !same(e));
    h.unshift(entry);
    save(h);
  }

  function render(list, form) {
    list.replaceChildren();
    for (const e of load()) {
      const li = document.createElement('li');
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = e.statement;
      b.title = 'Put this statement in the editor';
      if (e.parameters) {
        const p = document.createElement('span');
        p.className = 'pq-hist-params';
        p.textContent = 'parameters: ' + e.parameters;
        b.append(p);
      }
      b.addEventListener('click', () => reuse(form, e));
      li.append(b);
      list.append(li);
    }
  }

  function reuse(form, e) {
    const st = form.elements.namedItem('statement');
    const params = form.elements.namedItem('parameters');
    const mode = form.elements.namedItem('parammode');
    st.value = e.statement;
    if (params) params.value = e.parameters || '';
    if (mode && e.parammode) mode.value = e.parammode;
    if (e.parameters) {
      const d = params && params.closest('details');
      if (d) d.open = true;
    }
    st.focus();
    st.setSelectionRange(st.value.length, st.value.length);
  }

  function init() {
    const form = document.getElementById('partiql-form');
    const list = document.getElementById('history');
    if (!form || !list) return;
    form.addEventListener('submit', () => {
      const statement = form.elements.namedItem('statement').value;
      if (!statement.trim()) return;
      remember({
        statement,
        parameters: (form.elements.namedItem('parameters').value || '').trim(),
        parammode: form.elements.namedItem('parammode').value,
      });
      render(list, form);
    });
    render(list, form);
  }

  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();
