// dynago console: the create-table form's index rows. Without this
// script the "Add ... index" and "Remove" buttons are submit buttons the
// server answers by showing the form again with a row more or less; with
// it they add and remove rows in place. A row's fields are named
// gsi-N-* / lsi-N-*: any unique N, the server reads them in N's order.
(function () {
  'use strict';
  const renumber = (rows) => {
    rows.querySelectorAll('.index-row').forEach((row, i) => {
      row.querySelectorAll('.ix-num').forEach((s) => { s.textContent = String(i + 1); });
    });
  };
  const add = (kind) => {
    const tpl = document.getElementById('tpl-' + kind);
    const rows = document.getElementById(kind + '-rows');
    if (!tpl || !rows) return false;
    let next = 0;
    rows.querySelectorAll('input[name$="-name"]').forEach((el) => {
      const m = /^[a-z]+-(\d+)-name$/.exec(el.name);
      if (m) next = Math.max(next, Number(m[1]) + 1);
    });
    const count = rows.querySelectorAll('.index-row').length;
    const html = tpl.innerHTML.replaceAll('__N__', String(next)).replaceAll('__NUM__', String(count + 1));
    rows.insertAdjacentHTML('beforeend', html);
    const row = rows.lastElementChild;
    // A provisioned table's GSI starts with the table's capacity units.
    ['rcu', 'wcu'].forEach((u) => {
      const table = document.querySelector('form.create input[name="' + u + '"]');
      const own = row.querySelector('input[name$="-' + u + '"]');
      if (table && own && table.value) own.value = table.value;
    });
    const name = row.querySelector('input[name$="-name"]');
    if (name) name.focus();
    return true;
  };
  document.addEventListener('click', (e) => {
    const target = e.target instanceof Element ? e.target : null;
    const addBtn = target && target.closest('button[data-add-index]');
    if (addBtn) {
      if (add(addBtn.dataset.addIndex)) e.preventDefault();
      return;
    }
    const rm = target && target.closest('button[data-remove-index]');
    if (rm) {
      const row = rm.closest('.index-row');
      const rows = row && row.parentElement;
      if (!row || !rows) return;
      e.preventDefault();
      const section = rows.closest('fieldset');
      row.remove();
      renumber(rows);
      const focus = rows.querySelector('.index-row:last-child input[name$="-name"]') || (section && section.querySelector('button[data-add-index]'));
      if (focus) focus.focus();
    }
  });
})();
