// dynago console: the design pages. The item-collection view's pickers
// apply with the Show button, or Enter on a select: not on change, which
// the arrow keys fire on every step (a reload each, the focus lost;
// WCAG 3.2.2 On Input). The live traffic refreshes through htmx
// (hx-trigger="every 3s"), with no script here.
(function () {
  'use strict';
  for (const sel of document.querySelectorAll('form.design-pick select')) {
    if (!sel.form) continue;
    sel.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') { e.preventDefault(); sel.form.requestSubmit(); }
    });
  }
})();
