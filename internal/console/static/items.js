// dynago console: a table's page and the item editor.
// - The index select reads the chosen table or index at once (by the
//   keys: on Enter).
// - The key condition shows for Query only; a second value for between.
// - "Add a condition" adds a filter row.
(function () {
  'use strict';
  const form = document.getElementById('query');
  if (!form) return;
  // A choice made with the mouse reads at once; one made with the keys
  // (arrows step through the choices, each a change) waits for Enter, so
  // that stepping to the second index does not reload the page at the
  // first step. After the reload the select has the focus (autofocus).
  const index = document.getElementById('q-index');
  const hint = document.getElementById('q-index-hint');
  if (index) {
    let byKey = false;
    index.addEventListener('pointerdown', () => { byKey = false; });
    index.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        e.preventDefault();
        form.requestSubmit();
        return;
      }
      if (e.key !== 'Tab' && e.key !== 'Shift') byKey = true;
    });
    index.addEventListener('change', () => {
      if (!byKey) form.requestSubmit();
      else if (hint) hint.hidden = false;
    });
  }
  const key = document.getElementById('q-key');
  const op = () => (form.querySelector('input[name="op"]:checked') || {}).value;
  const showKey = () => {
    if (!key) return;
    if (op() === 'query') key.removeAttribute('data-hidden'); else key.setAttribute('data-hidden', '');
  };
  form.querySelectorAll('input[name="op"]').forEach((r) => r.addEventListener('change', () => {
    showKey();
    if (op() === 'query') { const pk = document.getElementById('q-pk'); if (pk) pk.focus(); }
  }));
  showKey();
  // The second value of a between (the sort key's, each filter row's).
  const between = (sel, box) => {
    if (!sel || !box) return;
    const f = () => { if (sel.value === 'between') box.removeAttribute('data-hidden'); else box.setAttribute('data-hidden', ''); };
    sel.addEventListener('change', f);
    f();
  };
  between(document.getElementById('q-skop'), form.querySelector('label.sk2'));
  const rows = document.getElementById('q-filters');
  const wire = (row) => between(row.querySelector('select[name="fo"]'), row.querySelector('label.fv2'));
  rows.querySelectorAll('.filter').forEach(wire);
  document.getElementById('q-add-filter').addEventListener('click', () => {
    const last = rows.querySelector('.filter:last-child');
    const row = last.cloneNode(true);
    row.querySelectorAll('input').forEach((i) => { i.value = ''; });
    row.querySelector('select[name="fo"]').value = '=';
    row.querySelector('select[name="ft"]').value = 'S';
    rows.appendChild(row);
    wire(row);
    row.querySelector('input[name="fa"]').focus();
  });
})();
