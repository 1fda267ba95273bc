// dynago console: the design pages. A select marked autosubmit shows its
// choice at once (the item-collection view's index); the live traffic
// refreshes through htmx (hx-trigger="every 3s"), with no script here.
(function () {
  'use strict';
  for (const sel of document.querySelectorAll('select.autosubmit')) {
    if (sel.form) sel.addEventListener('change', () => sel.form.requestSubmit());
  }
})();
