// compare.html's charts. report.js (inlined after this file) draws every
// <canvas data-chart=KIND>; the kinds below are registered for it here and drawn with its
// helpers (`kit`), so both pages share one set of formats, colours and chart options.
(function () {
  'use strict';

  const sideColours = (kit) => ({ a: kit.grey, b: kit.cssColour('--accent') });

  // Vertical whiskers [low, high] on the bars of one dataset, from its `whiskers` array.
  const whiskerPlugin = {
    id: 'fleetWhiskers',
    afterDatasetsDraw(chart) {
      const { ctx, scales } = chart;
      chart.data.datasets.forEach((d, di) => {
        if (!d.whiskers || !chart.isDatasetVisible(di)) return;
        const meta = chart.getDatasetMeta(di);
        ctx.save();
        ctx.strokeStyle = '#1d2330';
        ctx.lineWidth = 1.2;
        d.whiskers.forEach((w, i) => {
          const bar = meta.data[i];
          if (!w || !bar) return;
          const y = (v) => scales.y.getPixelForValue(v);
          const lo = y(w[0]), hi = y(w[1]), x = bar.x, half = Math.max(3, bar.width / 5);
          if (!Number.isFinite(lo) || !Number.isFinite(hi)) return;
          ctx.beginPath();
          ctx.moveTo(x, lo); ctx.lineTo(x, hi);
          ctx.moveTo(x - half, lo); ctx.lineTo(x + half, lo);
          ctx.moveTo(x - half, hi); ctx.lineTo(x + half, hi);
          ctx.stroke();
        });
        ctx.restore();
      });
    },
  };

  // A bar per entry for A and for B; B's whisker is A + the 95 % interval of the change.
  function pairedBars(kit, labels, entries, scale, tooltipFormat, y) {
    const colours = sideColours(kit);
    const whiskers = entries.map((e) => (e.ci && kit.ok(e.a)
      ? [(e.a + e.ci[0]) * scale, (e.a + e.ci[1]) * scale] : null));
    const values = (key) => entries.map((e) => (kit.ok(e[key]) ? e[key] * scale : null));
    return {
      type: 'bar',
      data: {
        labels,
        datasets: [
          { label: 'A', data: values('a'), backgroundColor: kit.withAlpha(colours.a, 0.85) },
          { label: 'B', data: values('b'), backgroundColor: kit.withAlpha(colours.b, 0.85),
            whiskers },
        ],
      },
      options: kit.options({
        mode: 'index', x: { ticks: { autoSkip: false, maxRotation: 30 } }, y,
        title: (items) => (items.length ? items[0].label : ''),
        label: (c) => {
          const e = entries[c.dataIndex];
          let text = c.dataset.label + ': ' + tooltipFormat(c.parsed.y / scale);
          if (c.dataset.label === 'B' && e.ci) {
            text += ' (change ' + tooltipFormat(e.b - e.a) + ', 95 % CI ' +
              tooltipFormat(e.ci[0]) + ' … ' + tooltipFormat(e.ci[1]) + ')';
          }
          return text;
        },
      }),
      plugins: [whiskerPlugin],
    };
  }

  window.fleetExtraDrawers = {
    cmp_p99(model, colourOf, kit) {
      const ops = kit.list(kit.get(model, 'ops')).filter((op) =>
        kit.ok(kit.get(op, 'stats', 'p99', 'a')) && kit.ok(kit.get(op, 'stats', 'p99', 'b')));
      const entries = ops.map((op) => kit.get(op, 'stats', 'p99'));
      const positive = entries.every((e) => e.a > 0 && e.b > 0);
      const y = positive
        ? { type: 'logarithmic', ticks: { callback: kit.decadeTicks(kit.fmt.ms) } }
        : { beginAtZero: true, ticks: { callback: kit.fmt.ms } };
      return pairedBars(kit, ops.map((op) => String(kit.get(op, 'short') || '')), entries, 1,
        kit.fmt.ms, y);
    },
    cmp_rates(model, colourOf, kit) {
      const tiers = [['l1_hit_rate', 'L1 hit'], ['l2_hit_rate', 'L2 hit'],
                     ['l1_l2_hit_rate', 'L1 + L2 hit'], ['miss_rate', 'miss']];
      const entries = tiers.map(([key]) => kit.get(model, 'cache', key) || {});
      return pairedBars(kit, tiers.map(([, label]) => label), entries, 100,
        (v) => kit.fmt.percent(v), kit.percentAxis(false));
    },
    cmp_cdf(model, colourOf, kit) {
      const ops = kit.list(kit.get(model, 'ops'));
      const datasets = [];
      let positive = false;
      ops.forEach((op, i) => {
        const colour = kit.palette[i % kit.palette.length];
        const name = String(kit.get(op, 'short') || '');
        for (const side of ['a', 'b']) {
          const data = kit.xy(kit.get(model, 'cdf', String(kit.get(op, 'qualname')), side));
          if (!data.length) continue;
          positive = positive || data.some((p) => p.x > 0);
          datasets.push(line(kit, name + ' ' + side.toUpperCase(), data, colour, side));
        }
      });
      // A virtual-clock run has 0 ms latencies: no log axis can show them.
      if (positive) datasets.forEach((d) => { d.data = d.data.filter((p) => p.x > 0); });
      return { type: 'line', data: { datasets }, options: kit.options({
        x: positive
          ? { type: 'logarithmic', title: { display: true, text: 'latency' },
              ticks: { callback: kit.decadeTicks(kit.fmt.ms), maxRotation: 0 } }
          : { type: 'linear', min: 0, title: { display: true, text: 'latency' },
              ticks: { callback: kit.fmt.ms } },
        y: kit.fractionAxis(),
        title: (items) => (items.length ? '≤ ' + kit.fmt.ms(items[0].parsed.x) : ''),
        label: (c) => c.dataset.label + ': ' + kit.fmt.percent(c.parsed.y) + ' of calls',
      }) };
    },
  };

  // Run A solid, run B dashed, in the op's colour.
  function line(kit, label, data, colour, side) {
    return kit.line(label, data, colour, side === 'b' ? { borderDash: [5, 3] } : {});
  }
})();
