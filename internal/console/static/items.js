// dynago console: a table's page and the item editor.
// - The index select reads the chosen table or index at once.
// - The key condition shows for Query only; a second value for between.
// - "Add a condition" adds a filter row.
(function () {
  'use strict';
  const form = document.getElementById('query');
  if (!form) return;
  const index = document.getElementById('q-index');
  if (index) index.addEventListener('change', () => form.requestSubmit());
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
