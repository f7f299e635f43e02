// report.html's charts. Reads the embedded report model, draws one Chart.js chart into each
// <canvas data-chart=KIND>, and records the outcome on <body> (data-charts-drawn,
// data-charts-expected), with any error in #report-errors, so a headless browser can check the
// page. Every number is also in the server-rendered tables: nothing here is needed to read them.
(function () {
  'use strict';

  // --- Errors: kept in the DOM, where a test (or a reader) sees them --------------------------
  const errorsBox = document.getElementById('report-errors');
  function reportError(message) {
    if (!errorsBox) return;
    errorsBox.textContent += message + '\n';
    errorsBox.hidden = false;
  }
  window.onerror = function (message, source, line) {
    reportError('error: ' + message + (line ? ' (line ' + line + ')' : ''));
  };
  const consoleError = console.error.bind(console);
  console.error = function (...args) {
    reportError('console.error: ' + args.map(String).join(' '));
    consoleError(...args);
  };

  // --- Numbers: the same rules as the C++ tables (number_format.cc) ---------------------------
  function sig3(v) {
    if (v === 0) return '0';
    const decimals = Math.max(0, 2 - Math.floor(Math.log10(Math.abs(v))));
    return String(Number(v.toFixed(Math.min(decimals, 20))));
  }
  function scaled(v, step, units) {
    let i = 0;
    // 999.7 would round to "1000": move to the next unit before it does.
    while (Math.abs(v) >= step * 0.9995 && i + 1 < units.length) {
      v /= step;
      i += 1;
    }
    return units[i] ? sig3(v) + ' ' + units[i] : sig3(v);
  }
  const ok = (v) => typeof v === 'number' && Number.isFinite(v);
  const MISSING = '—';
  const fmt = {
    count: (v) => !ok(v) ? MISSING
      : Math.abs(v) < 1000 && Number.isInteger(v) ? String(v)
      : scaled(v, 1000, ['', 'k', 'M', 'G', 'T', 'P']),
    percent: (f) => {
      if (!ok(f)) return MISSING;
      const p = f * 100;
      if (p === 0) return '0 %';
      if (Math.abs(p) < 0.05) return p > 0 ? '<0.1 %' : '>-0.1 %';
      return p.toFixed(1) + ' %';
    },
    us: (us) => !ok(us) ? MISSING
      : us === 0 ? '0'
      : scaled(us * 1000, 1000, ['ns', 'µs', 'ms', 's']),
    ms: (ms) => ok(ms) ? fmt.us(ms * 1000) : MISSING,
    seconds: (s) => {
      if (!ok(s)) return MISSING;
      if (s === 0) return '0 s';
      if (Math.abs(s) < 60) return fmt.us(s * 1e6);
      const t = Math.round(s);
      const pad = (n) => String(n).padStart(2, '0');
      return t < 3600 ? Math.floor(t / 60) + ' min ' + pad(t % 60) + ' s'
        : Math.floor(t / 3600) + ' h ' + pad(Math.floor(t / 60) % 60) + ' min';
    },
    bytes: (b) => !ok(b) ? MISSING
      : Math.abs(b) < 1024 ? Math.round(b) + ' B'
      : scaled(b, 1024, ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB']),
    rate: (v) => ok(v) ? fmt.count(v) + '/s' : MISSING,
    ratio: (v) => ok(v) ? v.toFixed(3) : MISSING,
  };

  // --- Reading the model defensively: any field may be missing --------------------------------
  const get = (obj, ...path) =>
    path.reduce((o, k) => (o !== null && typeof o === 'object' ? o[k] : undefined), obj);
  const list = (v) => (Array.isArray(v) ? v : []);
  // [[x, y], ...] -> [{x, y}], dropping malformed points (and x <= 0 for a log x axis).
  function xy(points, positiveX) {
    return list(points)
      .filter((p) => Array.isArray(p) && ok(p[0]) && ok(p[1]) && (!positiveX || p[0] > 0))
      .map((p) => ({ x: p[0], y: p[1] }));
  }

  // --- Colours: from report.css, so tables and charts agree ----------------------------------
  const rootStyle = getComputedStyle(document.documentElement);
  const cssColour = (name) => rootStyle.getPropertyValue(name).trim();
  const palette = [0, 1, 2, 3, 4, 5, 6, 7].map((i) => cssColour('--c' + i));
  const grey = cssColour('--c-others');
  const tiers = { l1: cssColour('--l1'), l2: cssColour('--l2'), miss: cssColour('--miss') };
  function withAlpha(hex, alpha) {
    const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
    if (!m) return hex;
    return 'rgba(' + [1, 2, 3].map((i) => parseInt(m[i], 16)).join(',') + ',' + alpha + ')';
  }
  // Name -> colour in order of first appearance; "others" grey. series_view.cc does the same.
  function seriesColours(model) {
    const lists = [
      get(model, 'series', 'records_per_s'), get(model, 'series', 'lateness_p99_us'),
      get(model, 'series', 'lateness_max_us'), get(model, 'series', 'failed'),
      get(model, 'contention', 'share_ops'), get(model, 'contention', 'share_bytes'),
    ];
    const map = new Map();
    let next = 0;
    for (const l of lists) {
      for (const s of list(l)) {
        const name = String(get(s, 'name') ?? '');
        if (map.has(name)) continue;
        map.set(name, name === 'others' ? grey : palette[next++ % palette.length]);
      }
    }
    return (name) => map.get(String(name ?? '')) || grey;
  }

  // --- Chart building blocks -----------------------------------------------------------------
  // Labels only at powers of ten: a log axis stays readable.
  const decadeTicks = (format) => (v) => {
    const l = Math.log10(v);
    return Math.abs(l - Math.round(l)) < 1e-9 ? format(v) : '';
  };
  // Short tick labels ("45 s", "1:40", "1:02:05"): a long run's axis stays unrotated.
  function clockTick(v) {
    if (Math.abs(v) < 60) return sig3(v) + ' s';
    const t = Math.round(v);
    const pad = (n) => String(n).padStart(2, '0');
    const m = Math.floor(t / 60) % 60, h = Math.floor(t / 3600);
    return (h ? h + ':' + pad(m) : String(m)) + ':' + pad(t % 60);
  }
  const timeAxis = () => ({
    type: 'linear',
    title: { display: true, text: 'time since the run started' },
    ticks: { callback: clockTick, maxTicksLimit: 10, maxRotation: 0 },
  });
  const fractionAxis = () => ({
    min: 0, max: 1, ticks: { callback: (v) => Math.round(v * 100) + ' %' },
  });
  const percentAxis = (stacked) => ({
    stacked, min: 0, max: 100, ticks: { callback: (v) => v + ' %', maxRotation: 0 },
  });
  function options({ x, y, legend = true, mode = 'nearest', label, title, extra = {} }) {
    return Object.assign({
      animation: false,
      responsive: true,
      maintainAspectRatio: false,
      normalized: true,
      interaction: { mode, axis: 'x', intersect: false },
      elements: {
        point: { radius: 0, hitRadius: 4, hoverRadius: 3 },
        line: { borderWidth: 1.6, tension: 0 },
      },
      plugins: {
        legend: { display: legend, position: 'bottom', labels: { boxWidth: 10, boxHeight: 10 } },
        tooltip: {
          callbacks: {
            title: title || ((items) => (items.length ? fmt.seconds(items[0].parsed.x) : '')),
            label,
          },
        },
      },
      scales: { x, y },
    }, extra);
  }
  function line(label, data, colour, more) {
    return Object.assign({ label, data, borderColor: colour, backgroundColor: colour }, more);
  }
  // Stacked 0..100 % areas, one per {label, colour, points (fractions)}.
  function stackedAreas(entries) {
    return entries.map((e, i) => line(e.label, xy(e.points).map((p) => ({ x: p.x, y: p.y * 100 })),
      e.colour, { fill: i === 0 ? 'origin' : '-1', backgroundColor: withAlpha(e.colour, 0.6),
                  borderWidth: 1 }));
  }
  const hasPositive = (datasets) => datasets.some((d) => d.data.some((p) => p.y > 0));
  // A legend click toggles every dataset of that node (its p99 and max lines together).
  function toggleNode(e, item, legend) {
    const chart = legend.chart;
    const node = chart.data.datasets[item.datasetIndex].node;
    chart.data.datasets.forEach((d, i) => {
      if (d.node === node) chart.setDatasetVisibility(i, !chart.isDatasetVisible(i));
    });
    chart.update();
  }

  // --- One drawer per data-chart kind: model -> Chart.js config ------------------------------
  const drawers = {
    throughput(model, colourOf) {
      const datasets = list(get(model, 'series', 'records_per_s')).map((s) =>
        line(s.name, xy(s.points), colourOf(s.name)));
      return { type: 'line', data: { datasets }, options: options({
        x: timeAxis(),
        y: { beginAtZero: true, ticks: { callback: fmt.count },
             title: { display: true, text: 'records/s' } },
        label: (c) => c.dataset.label + ': ' + fmt.rate(c.parsed.y),
      }) };
    },
    failed(model, colourOf) {
      const datasets = list(get(model, 'series', 'failed')).map((s) =>
        line(s.name, xy(s.points), colourOf(s.name)));
      return { type: 'line', data: { datasets }, options: options({
        x: timeAxis(),
        y: { beginAtZero: true, ticks: { callback: fmt.count, precision: 0 } },
        label: (c) => c.dataset.label + ': ' + fmt.count(c.parsed.y) + ' failed',
      }) };
    },
    lateness_time(model, colourOf) {
      const datasets = [];
      for (const s of list(get(model, 'series', 'lateness_p99_us'))) {
        datasets.push(line(s.name, xy(s.points), colourOf(s.name), { node: s.name, stat: 'p99' }));
      }
      for (const s of list(get(model, 'series', 'lateness_max_us'))) {
        datasets.push(line(s.name + ' max', xy(s.points), colourOf(s.name),
          { node: s.name, stat: 'max', borderDash: [4, 3], borderWidth: 1 }));
      }
      const log = hasPositive(datasets);
      const opts = options({
        x: timeAxis(),
        y: log ? { type: 'logarithmic', ticks: { callback: decadeTicks(fmt.us), maxRotation: 0 } }
          : { beginAtZero: true, ticks: { callback: fmt.us } },
        label: (c) => c.dataset.node + ' ' + c.dataset.stat + ': ' + fmt.us(c.parsed.y),
      });
      opts.plugins.legend.labels.filter = (item, data) =>
        data.datasets[item.datasetIndex].stat === 'p99';
      opts.plugins.legend.onClick = toggleNode;
      return { type: 'line', data: { datasets }, options: opts };
    },
    lateness_cdf(model) {
      const colour = cssColour('--accent');
      const datasets = [line('all records', xy(get(model, 'lateness', 'cdf'), true), colour,
        { fill: 'origin', backgroundColor: withAlpha(colour, 0.08) })];
      return { type: 'line', data: { datasets }, options: options({
        legend: false,
        x: { type: 'logarithmic', title: { display: true, text: 'lateness' },
             ticks: { callback: decadeTicks(fmt.us), maxRotation: 0 } },
        y: fractionAxis(),
        title: (items) => (items.length ? '≤ ' + fmt.us(items[0].parsed.x) + ' late' : ''),
        label: (c) => fmt.percent(c.parsed.y) + ' of records',
      }) };
    },
    op_cdf(model) {
      const markers = [['p50_ms', 0.5, 'circle', 'p50'], ['p90_ms', 0.9, 'rectRot', 'p90'],
                       ['p99_ms', 0.99, 'triangle', 'p99']];
      const datasets = list(get(model, 'ops')).map((op, i) => {
        const data = xy(get(op, 'cdf'), true);
        // The quantiles sit on the line as marked points (same dataset: one legend toggle).
        for (const [key, q, style, name] of markers) {
          const x = get(op, key);
          if (ok(x) && x > 0) data.push({ x, y: q, marker: name, style });
        }
        data.sort((a, b) => a.x - b.x || a.y - b.y);
        const name = get(op, 'short') || String(get(op, 'qualname') || '').split('.').pop();
        return line(name, data, palette[i % palette.length], {
          borderDash: i >= palette.length ? [5, 3] : undefined,
          pointRadius: (c) => (c.raw && c.raw.marker ? 4 : 0),
          pointStyle: (c) => (c.raw && c.raw.style) || 'circle',
        });
      });
      return { type: 'line', data: { datasets }, options: options({
        x: { type: 'logarithmic', title: { display: true, text: 'latency' },
             ticks: { callback: decadeTicks(fmt.ms), maxRotation: 0 } },
        y: fractionAxis(),
        title: (items) => (items.length ? '≤ ' + fmt.ms(items[0].parsed.x) : ''),
        label: (c) => c.dataset.label + (c.raw.marker ? ' ' + c.raw.marker : '') + ': ' +
          fmt.percent(c.parsed.y) + ' of calls',
      }) };
    },
    hit_rate(model) {
      const hr = get(model, 'series', 'hit_rate');
      const datasets = stackedAreas([
        { label: 'L1 hit', colour: tiers.l1, points: get(hr, 'l1') },
        { label: 'L2 hit', colour: tiers.l2, points: get(hr, 'l2') },
        { label: 'miss', colour: tiers.miss, points: get(hr, 'miss') },
      ]);
      return { type: 'line', data: { datasets }, options: options({
        mode: 'index', x: timeAxis(), y: percentAxis(true),
        label: (c) => c.dataset.label + ': ' + fmt.percent(c.parsed.y / 100),
      }) };
    },
    node_hits(model) {
      const nodes = list(get(model, 'nodes'));
      const bar = (label, key, colour) => ({
        label, backgroundColor: colour, borderWidth: 0,
        data: nodes.map((n) => (ok(get(n, key)) ? get(n, key) * 100 : null)),
      });
      return { type: 'bar', data: {
        labels: nodes.map((n) => String(get(n, 'name') ?? '')),
        datasets: [bar('L1 hit', 'l1_hit_rate', tiers.l1), bar('L2 hit', 'l2_hit_rate', tiers.l2),
                   bar('miss', 'miss_rate', tiers.miss)],
      }, options: options({
        mode: 'index',
        x: percentAxis(true),
        y: { stacked: true, ticks: { autoSkip: false, font: { size: 10.5 } } },
        title: (items) => (items.length ? items[0].label : ''),
        label: (c) => c.dataset.label + ': ' + fmt.percent(c.parsed.x / 100),
        extra: { indexAxis: 'y', interaction: { mode: 'index', axis: 'y', intersect: false },
                 datasets: { bar: { categoryPercentage: 0.85, barPercentage: 0.95 } } },
      }) };
    },
    share_ops(model, colourOf) {
      return shareChart(get(model, 'contention', 'share_ops'), colourOf);
    },
    share_bytes(model, colourOf) {
      return shareChart(get(model, 'contention', 'share_bytes'), colourOf);
    },
    fairness(model) {
      const datasets = [line('Jain fairness', xy(get(model, 'contention', 'fairness_series')),
        cssColour('--accent'))];
      return { type: 'line', data: { datasets }, options: options({
        legend: false, x: timeAxis(), y: { min: 0, max: 1 },
        label: (c) => 'fairness ' + fmt.ratio(c.parsed.y),
      }) };
    },
    l2_p99(model) {
      const datasets = [line('L2 p99', xy(get(model, 'contention', 'l2_p99_us')), tiers.l2)];
      return { type: 'line', data: { datasets }, options: options({
        legend: false, x: timeAxis(), y: { beginAtZero: true, ticks: { callback: fmt.us } },
        label: (c) => 'L2 p99 ' + fmt.us(c.parsed.y),
      }) };
    },
  };
  // Other pages built on this script (compare.html) add chart kinds of their own, defined
  // before it runs as window.fleetExtraDrawers = {kind(model, colourOf, kit) {...}}, and draw
  // them with these same helpers.
  const kit = { fmt, get, list, xy, ok, options, line, palette, grey, tiers, cssColour,
                withAlpha, decadeTicks, fractionAxis, percentAxis };
  const extraDrawers = window.fleetExtraDrawers || {};
  function shareChart(series, colourOf) {
    const datasets = stackedAreas(list(series).map((s) =>
      ({ label: s.name, colour: colourOf(s.name), points: s.points })));
    return { type: 'line', data: { datasets }, options: options({
      mode: 'index', x: timeAxis(), y: percentAxis(true),
      label: (c) => c.dataset.label + ': ' + fmt.percent(c.parsed.y / 100),
    }) };
  }

  // --- Sortable tables (a bonus: the rows read fine unsorted) --------------------------------
  function makeSortable(table) {
    const head = table.tHead && table.tHead.rows[0];
    const body = table.tBodies[0];
    if (!head || !body) return;
    Array.from(head.cells).forEach((th, col) => th.addEventListener('click', () => {
      const numeric = th.classList.contains('num');
      const current = th.getAttribute('aria-sort');
      const dir = current ? (current === 'ascending' ? 'descending' : 'ascending')
        : (numeric ? 'descending' : 'ascending');
      Array.from(head.cells).forEach((c) => c.removeAttribute('aria-sort'));
      th.setAttribute('aria-sort', dir);
      const key = (row) => {
        const cell = row.cells[col];
        if (!cell) return '';
        return cell.dataset.v !== undefined ? Number(cell.dataset.v) : cell.textContent.trim();
      };
      const rows = Array.from(body.rows);
      rows.sort((a, b) => {
        const ka = key(a), kb = key(b);
        const na = typeof ka === 'number', nb = typeof kb === 'number';
        let c;
        if (na && nb) c = ka - kb;
        else if (na !== nb) return na ? -1 : 1;  // missing values last either way
        else c = String(ka).localeCompare(String(kb), undefined, { numeric: true });
        return dir === 'ascending' ? c : -c;
      });
      rows.forEach((r) => body.appendChild(r));
    }));
  }

  // --- Main -----------------------------------------------------------------------------------
  function drawAll() {
    const canvases = Array.from(document.querySelectorAll('canvas[data-chart]'));
    document.body.dataset.chartsExpected = String(canvases.length);
    let drawn = 0;
    if (typeof Chart === 'undefined') {
      reportError('Chart.js did not load: no chart is drawn');
    } else {
      let model = {};
      try {
        model = JSON.parse(document.getElementById('fleet-model').textContent || '{}') || {};
      } catch (e) {
        reportError('report model: ' + e.message);
      }
      Chart.defaults.font.family = getComputedStyle(document.body).fontFamily;
      Chart.defaults.font.size = 11.5;
      Chart.defaults.color = cssColour('--muted');
      Chart.defaults.borderColor = cssColour('--line-soft');
      const colourOf = seriesColours(model);
      for (const canvas of canvases) {
        const kind = canvas.dataset.chart;
        try {
          const draw = drawers[kind] || extraDrawers[kind];
          if (!draw) throw new Error('no drawer for this chart kind');
          new Chart(canvas, draw(model, colourOf, kit));
          drawn += 1;
        } catch (e) {
          reportError('chart ' + kind + ': ' + ((e && e.stack) || e));
        }
      }
    }
    document.body.dataset.chartsDrawn = String(drawn);
  }

  try {
    document.documentElement.classList.replace('no-js', 'js');
    document.querySelectorAll('table.sortable').forEach(makeSortable);
    drawAll();
  } catch (e) {
    reportError('report.js: ' + ((e && e.stack) || e));
    if (!document.body.dataset.chartsDrawn) document.body.dataset.chartsDrawn = '0';
  }
})();
