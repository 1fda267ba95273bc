// dynago console: a table's stream page. The records arrive with htmx
// polling (hx-trigger="every 2s" on #stream-poll); this script only adds
// a Pause button that holds the polls while one reads.
(function () {
  'use strict';
  let paused = false;
  function init() {
    const b = document.getElementById('stream-pause');
    if (!b || !document.getElementById('stream-poll')) return;
    b.hidden = false;
    b.addEventListener('click', () => {
      paused = !paused;
      b.setAttribute('aria-pressed', String(paused));
      b.textContent = paused ? 'Resume' : 'Pause';
      document.body.classList.toggle('st-paused', paused);
    });
  }
  document.addEventListener('htmx:beforeRequest', (e) => {
    if (paused && e.detail.elt && e.detail.elt.id === 'stream-poll') e.preventDefault();
  });
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', init);
  else init();
})();
