// dynago console: the capacity page. Every 3 seconds it fetches
// /console/capacity/data (the engine's insights report with the series
// behind it) and draws, for the table and each GSI: the units consumed a
// second as a uPlot line chart, the partitions' load against their
// limits as a heat map on a <canvas> (partitions down, time across,
// colour = share of the limit, × where requests were throttled; the
// numbers on hover, or with the arrow keys on the focused map), and
// Contributor Insights' hottest keys.
(function () {
  'use strict';
  const root = document.getElementById('capacity');
  // The table and window pickers apply with the Show button, or Enter on
  // the select: not on change, which the arrow keys fire on every step
  // (a reload each, the focus lost to <body>; WCAG 3.2.2 On Input).
  for (const id of ['capacity-table', 'capacity-window']) {
    const sel = document.getElementById(id);
    if (sel && sel.form) {
      sel.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') { e.preventDefault(); sel.form.requestSubmit(); }
      });
    }
  }
  if (!root || !root.dataset.src) return;
  const throttling = root.dataset.throttle === 'true';
  const charts = new Map(); // key-space index → uPlot
  const heats = new Map(); // key-space index → heat state
  let last = null;

  const fmt = (v) => (Math.round(v * 100) / 100).toFixed(2);
  // hms writes a time as the console's other pages do: 24-hour HH:MM:SS
  // in UTC (the page says UTC once).
  const hms = (d) => d.toISOString().slice(11, 19);
  const hmsOf = (sec) => hms(new Date(sec * 1000));
  const pct = (v) => (isFinite(v) ? Math.round(v * 100) + '%' : '—');

  // keyText writes a key (DynamoDB JSON) as NAME=value pairs, as the
  // server renders it.
  function keyText(key) {
    if (!key || typeof key !== 'object') return String(key);
    return Object.keys(key).sort().map((n) => {
      const av = key[n] || {};
      const t = Object.keys(av)[0];
      let v = av[t];
      if (typeof v !== 'string') v = JSON.stringify(v);
      return n + '=' + v;
    }).join(', ');
  }

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function renderKeys(list, keys, throttled) {
    list.replaceChildren();
    if (!keys || keys.length === 0) {
      list.append(el('li', 'none muted', 'none'));
      return;
    }
    for (const k of keys) {
      const li = el('li');
      li.append(el('code', 'key', keyText(k.key)), ' ');
      li.append(el('span', 'muted', throttled ? `${k.throttledRequests} throttled`
        : `${fmt(k.readUnitsPerSecond)} read, ${fmt(k.writeUnitsPerSecond)} write units/s on average`));
      list.append(li);
    }
  }

  function renderChart(i, box, ks) {
    const s = ks.series || { t: [], read: [], write: [] };
    const data = [s.t || [], s.read || [], s.write || []];
    const width = Math.max(box.clientWidth, 300);
    let u = charts.get(i);
    if (!u) {
      if (typeof uPlot === 'undefined') return;
      const stepped = uPlot.paths && uPlot.paths.stepped ? uPlot.paths.stepped({ align: 1 }) : undefined;
      u = new uPlot({
        width, height: 200,
        tzDate: (ts) => uPlot.tzDate(new Date(ts * 1e3), 'Etc/UTC'),
        scales: { x: { time: true }, y: { range: (_u, _min, max) => [0, Math.max(1, max * 1.15)] } },
        series: [{ value: (_u, t) => (t == null ? '—' : hmsOf(t)) },
          { label: 'read units/s', stroke: '#0b63ce', width: 2, paths: stepped, value: (_u, v) => (v == null ? '—' : fmt(v)) },
          { label: 'write units/s', stroke: '#d97706', width: 2, paths: stepped, value: (_u, v) => (v == null ? '—' : fmt(v)) }],
        axes: [{ space: 80, values: (_u, splits) => splits.map(hmsOf) }, { label: 'units a second', size: 56 }],
      }, data, box);
      charts.set(i, u);
      return;
    }
    if (u.width !== width) u.setSize({ width, height: 200 });
    u.setData(data);
  }

  // colour maps a share of the limit to the legend's scale.
  const stops = [[0, [238, 242, 246]], [0.4, [253, 230, 138]], [0.7, [245, 158, 11]], [1, [220, 38, 38]]];
  function colour(f) {
    if (!(f > 0)) return 'rgb(238,242,246)';
    if (f > 1) return 'rgb(153,27,27)';
    for (let k = 1; k < stops.length; k++) {
      if (f <= stops[k][0]) {
        const [a, ca] = stops[k - 1];
        const [b, cb] = stops[k];
        const x = (f - a) / (b - a);
        return 'rgb(' + ca.map((c, j) => Math.round(c + (cb[j] - c) * x)).join(',') + ')';
      }
    }
    return 'rgb(220,38,38)';
  }

  const labelW = 104;
  const rowH = 24;
  const axisH = 18;

  // cellOf returns the figures of partition p at step k.
  function cellOf(heat, p, k) {
    const part = heat.partitions[p];
    const r = part.readUnitsPerSecond[k] || 0;
    const w = part.writeUnitsPerSecond[k] || 0;
    return {
      part, r, w, rf: part.readLimit ? r / part.readLimit : 0, wf: part.writeLimit ? w / part.writeLimit : 0,
      rt: part.readThrottled[k] || 0, wt: part.writeThrottled[k] || 0,
      from: new Date(Date.parse(heat.start) + k * heat.stepSeconds * 1000),
    };
  }

  function shareOf(c, mode) {
    if (mode === 'read') return c.rf;
    if (mode === 'write') return c.wf;
    return Math.max(c.rf, c.wf);
  }

  function drawHeat(h) {
    const { canvas, heat, mode } = h;
    const rows = heat.partitions.length;
    const cols = heat.seconds.length;
    const cssW = Math.max(canvas.parentElement.clientWidth, 320);
    const cssH = rows * rowH + axisH;
    const dpr = window.devicePixelRatio || 1;
    canvas.style.height = cssH + 'px';
    canvas.width = Math.round(cssW * dpr);
    canvas.height = Math.round(cssH * dpr);
    const g = canvas.getContext('2d');
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, cssW, cssH);
    const cellW = (cssW - labelW) / Math.max(cols, 1);
    h.cellW = cellW;
    g.font = '11px ui-monospace, Menlo, monospace';
    g.textBaseline = 'middle';
    for (let p = 0; p < rows; p++) {
      const y = p * rowH;
      g.fillStyle = '#5f6b76';
      g.textAlign = 'left';
      g.fillText(`P${p + 1} ${heat.partitions[p].hashStart.slice(0, 4)}…`, 4, y + rowH / 2);
      for (let k = 0; k < cols; k++) {
        const c = cellOf(heat, p, k);
        const x = labelW + k * cellW;
        g.fillStyle = colour(shareOf(c, mode));
        g.fillRect(x, y + 1, Math.max(cellW - 1, 1), rowH - 2);
        const thr = mode === 'read' ? c.rt : mode === 'write' ? c.wt : c.rt + c.wt;
        if (thr > 0) {
          g.fillStyle = '#111';
          g.textAlign = 'center';
          g.font = 'bold 13px system-ui, sans-serif';
          g.fillText('×', x + cellW / 2, y + rowH / 2);
          g.font = '11px ui-monospace, Menlo, monospace';
        }
      }
    }
    if (h.sel) {
      g.strokeStyle = '#0b63ce';
      g.lineWidth = 2;
      g.strokeRect(labelW + h.sel.k * cellW + 1, h.sel.p * rowH + 1, Math.max(cellW - 2, 2), rowH - 2);
    }
    // Time axis: about five clock times.
    g.fillStyle = '#5f6b76';
    g.textAlign = 'center';
    const every = Math.max(1, Math.ceil(cols / 5));
    for (let k = 0; k < cols; k += every) {
      const t = new Date(Date.parse(heat.start) + k * heat.stepSeconds * 1000);
      g.fillText(hms(t), Math.min(Math.max(labelW + k * cellW, labelW + 24), cssW - 28), rows * rowH + axisH / 2);
    }
  }

  function tipText(h, p, k) {
    const c = cellOf(h.heat, p, k);
    const secs = h.heat.seconds[k];
    const to = new Date(c.from.getTime() + secs * 1000);
    let s = `Partition ${p + 1} (hash from ${c.part.hashStart})\n${hms(c.from)}–${hms(to)}\n`;
    s += `reads ${fmt(c.r)}/s of ${fmt(c.part.readLimit)} (${pct(c.rf)})\n`;
    s += `writes ${fmt(c.w)}/s of ${fmt(c.part.writeLimit)} (${pct(c.wf)})`;
    if (c.rt + c.wt > 0) s += `\nthrottled: ${c.rt} reads, ${c.wt} writes`;
    return s;
  }

  function showTip(h, p, k, x, y) {
    h.tip.textContent = tipText(h, p, k);
    h.tip.hidden = false;
    const wrapW = h.canvas.parentElement.clientWidth;
    h.tip.style.left = Math.min(x + 12, Math.max(wrapW - 300, 0)) + 'px';
    h.tip.style.top = (y + 14) + 'px';
  }

  function setupHeat(i, sec) {
    const canvas = sec.querySelector('canvas.ks-heat');
    if (!canvas) return null;
    const h = { canvas, tip: sec.querySelector('.heat-tip'), mode: 'max', heat: null, sel: null, cellW: 1 };
    const modeSel = sec.querySelector('.heat-mode');
    if (modeSel) modeSel.addEventListener('change', () => { h.mode = modeSel.value; if (h.heat) drawHeat(h); });
    const at = (ev) => {
      const r = canvas.getBoundingClientRect();
      const x = ev.clientX - r.left;
      const y = ev.clientY - r.top;
      const k = Math.floor((x - labelW) / h.cellW);
      const p = Math.floor(y / rowH);
      return { x, y, k, p };
    };
    canvas.addEventListener('mousemove', (ev) => {
      if (!h.heat) return;
      const { x, y, k, p } = at(ev);
      if (k < 0 || p < 0 || p >= h.heat.partitions.length || k >= h.heat.seconds.length) {
        h.tip.hidden = true;
        canvas.title = '';
        return;
      }
      canvas.title = tipText(h, p, k);
      showTip(h, p, k, x, y);
    });
    canvas.addEventListener('mouseleave', () => { h.tip.hidden = true; });
    canvas.addEventListener('keydown', (ev) => {
      if (!h.heat) return;
      const moves = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };
      if (ev.key === 'Escape') { h.sel = null; h.tip.hidden = true; drawHeat(h); return; }
      const m = moves[ev.key];
      if (!m) return;
      ev.preventDefault();
      const rows = h.heat.partitions.length;
      const cols = h.heat.seconds.length;
      const s = h.sel || { p: 0, k: cols - 1 };
      if (h.sel) { s.p = Math.min(Math.max(s.p + m[0], 0), rows - 1); s.k = Math.min(Math.max(s.k + m[1], 0), cols - 1); }
      h.sel = s;
      drawHeat(h);
      showTip(h, s.p, s.k, labelW + s.k * h.cellW, s.p * rowH + rowH / 2);
    });
    canvas.addEventListener('blur', () => { h.sel = null; h.tip.hidden = true; if (h.heat) drawHeat(h); });
    heats.set(i, h);
    return h;
  }

  function renderPartitions(tbody, parts) {
    tbody.replaceChildren();
    (parts || []).forEach((p, n) => {
      const tr = el('tr');
      if (p.readThrottled + p.writeThrottled > 0) tr.className = 'throttled';
      tr.append(el('td', 'num', String(n + 1)), el('td', 'key', p.hashStart + (p.startKey ? ' from ' + keyText(p.startKey) : '')),
        el('td', 'num', `${fmt(p.readUnitsPerSecond)} of ${fmt(p.readLimit)}`), el('td', 'num', `${fmt(p.writeUnitsPerSecond)} of ${fmt(p.writeLimit)}`),
        el('td', 'num', String(p.readThrottled)), el('td', 'num', String(p.writeThrottled)));
      tbody.append(tr);
    });
  }

  function render(d) {
    last = d;
    (d.keySpaces || []).forEach((ks, i) => {
      const row = root.querySelector(`table.capacity-summary tr[data-ks="${i}"]`);
      if (row) {
        row.querySelector('[data-field="read"]').textContent = fmt(ks.readUnitsPerSecond);
        row.querySelector('[data-field="write"]').textContent = fmt(ks.writeUnitsPerSecond);
        row.querySelector('[data-field="ci"]').textContent = ks.contributorInsights;
      }
      const sec = root.querySelector(`section.keyspace[data-ks="${i}"]`);
      if (!sec) return;
      renderChart(i, sec.querySelector('.ks-chart'), ks);
      const st = sec.querySelector('.ci-status');
      if (st) st.textContent = ks.contributorInsights;
      for (const list of sec.querySelectorAll('ol.keys')) {
        renderKeys(list, ks[list.dataset.view], list.dataset.view.startsWith('mostThrottled'));
      }
      if (!throttling) return;
      const h = heats.get(i) || setupHeat(i, sec);
      const empty = sec.querySelector('.heat-empty');
      if (!h) return;
      h.heat = ks.heat && ks.heat.partitions && ks.heat.partitions.length ? ks.heat : null;
      h.canvas.hidden = !h.heat;
      if (empty) empty.hidden = !!h.heat;
      if (h.heat) {
        if (h.sel) {
          h.sel.p = Math.min(h.sel.p, h.heat.partitions.length - 1);
          h.sel.k = Math.min(h.sel.k, h.heat.seconds.length - 1);
        }
        drawHeat(h);
      }
      const tbody = sec.querySelector('table.partitions tbody');
      if (tbody) renderPartitions(tbody, ks.partitions);
    });
    root.dataset.at = d.at;
  }

  let failing = false;
  async function refresh() {
    try {
      const res = await fetch(root.dataset.src, { credentials: 'same-origin', headers: { Accept: 'application/json' } });
      const body = await res.json();
      if (!res.ok) throw new Error(`${body.type || res.status}: ${body.error || ''}`);
      render(body);
      if (failing) { failing = false; root.querySelector('.capacity-fail')?.remove(); }
    } catch (err) {
      if (!failing) {
        failing = true;
        const p = el('div', 'error capacity-fail', 'Could not refresh the figures: ' + err.message);
        p.setAttribute('role', 'alert');
        root.prepend(p);
      }
    }
  }
  refresh();
  setInterval(() => { if (!document.hidden) refresh(); }, 3000);
  let resizing = 0;
  window.addEventListener('resize', () => {
    clearTimeout(resizing);
    resizing = setTimeout(() => { if (last) render(last); }, 150);
  });
})();
