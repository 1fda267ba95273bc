// dynago console: the little script every page loads (no inline scripts:
// the Content-Security-Policy allows only the console's own files).
// - htmx requests carry the session's CSRF token (the csrf-token meta).
// - Ctrl+Enter (or Cmd+Enter) in a textarea submits its form.
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
})();
