// dynago console: the little script every page loads (no inline scripts:
// the Content-Security-Policy allows only the console's own files).
// - htmx requests carry the session's CSRF token (the csrf-token meta).
// - Ctrl+Enter (or Cmd+Enter) in a textarea submits its form.
// - A GET form marked data-keep-focus (a picker that reloads the page)
//   gives the focus back, after the reload, to the field it was sent
//   from: the URL carries that field's id as _focus.
(function () {
  'use strict';
  const token = () => (document.querySelector('meta[name="csrf-token"]') || {}).content || '';
  document.addEventListener('htmx:configRequest', (e) => { e.detail.headers['X-CSRF-Token'] = token(); });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey) && e.target instanceof HTMLTextAreaElement && e.target.form) {
      e.preventDefault();
      e.target.form.requestSubmit();
    }
  });
  document.addEventListener('submit', (e) => {
    const form = e.target;
    const from = document.activeElement;
    if (!(form instanceof HTMLFormElement) || !form.hasAttribute('data-keep-focus') || !from || !from.id || !form.contains(from)) return;
    let keep = form.querySelector('input[name="_focus"]');
    if (!keep) {
      keep = document.createElement('input');
      keep.type = 'hidden';
      keep.name = '_focus';
      form.appendChild(keep);
    }
    keep.value = from.id;
  });
  document.addEventListener('DOMContentLoaded', () => {
    const id = new URLSearchParams(location.search).get('_focus');
    const el = id && document.getElementById(id);
    if (el && el.closest('form[data-keep-focus]')) el.focus();
  });
})();
