// report.html's L2 chart kinds (an L2 replay's page, l2_report_page.cc): registered as
// window.fleetExtraDrawers before report.js runs, which draws them with its own kit. Each reads
// model.l2_series: per kind, [[t, y], ...] per second of the run.
(function () {
  'use strict';
  const KINDS = ['store', 'lookup_task', 'load_task', 'unlock', 'delete'];
  // A kind's colour: its fixed slot, as the tables' swatches (l2_report_sections.cc).
  const colour = (kit, kind) => kit.palette[Math.max(0, KINDS.indexOf(kind)) % kit.palette.length];
  const timeAxis = () => ({
    type: 'linear',
    title: { display: true, text: 'time since the replay started (s)' },
    ticks: { maxTicksLimit: 10, maxRotation: 0 },
  });
  function lines(model, kit, key, more) {
    return kit.list(kit.get(model, 'l2_series', key)).map((s) => {
      const data = kit.xy(s.points);
      // A run of a second or two has one or two points: drawn as dots, a line would not show.
      const style = Object.assign({ pointRadius: data.length < 3 ? 3 : 0 }, more.style);
      return kit.line(s.name + (more.suffix || ''), data, colour(kit, s.name), style);
    });
  }
  const drawers = window.fleetExtraDrawers = window.fleetExtraDrawers || {};
  drawers.l2_ops_time = (model, colourOf, kit) => {
    const datasets = lines(model, kit, 'dispatched', { suffix: ' issued' }).concat(
      lines(model, kit, 'completed', { suffix: ' completed', style: { borderDash: [4, 3] } }));
    return { type: 'line', data: { datasets }, options: kit.options({
      x: timeAxis(),
      y: { beginAtZero: true, ticks: { callback: kit.fmt.count }, title: { display: true, text: 'operations/s' } },
      label: (c) => c.dataset.label + ': ' + kit.fmt.rate(c.parsed.y),
    }) };
  };
  drawers.l2_latency_time = (model, colourOf, kit) => {
    const datasets = lines(model, kit, 'latency_p99_us', { suffix: ' p99' }).concat(
      lines(model, kit, 'latency_p50_us', { suffix: ' p50', style: { borderDash: [4, 3] } }));
    const positive = datasets.some((d) => d.data.some((p) => p.y > 0));
    return { type: 'line', data: { datasets }, options: kit.options({
      x: timeAxis(),
      y: positive ? { type: 'logarithmic', ticks: { callback: kit.decadeTicks(kit.fmt.us), maxRotation: 0 } }
        : { beginAtZero: true, ticks: { callback: kit.fmt.us } },
      label: (c) => c.dataset.label + ': ' + kit.fmt.us(c.parsed.y),
    }) };
  };
  drawers.l2_bytes_time = (model, colourOf, kit) => {
    const datasets = lines(model, kit, 'bytes_moved', {});
    return { type: 'line', data: { datasets }, options: kit.options({
      x: timeAxis(),
      y: { beginAtZero: true, ticks: { callback: (v) => kit.fmt.bytes(v) + '/s' } },
      label: (c) => c.dataset.label + ': ' + kit.fmt.bytes(c.parsed.y) + '/s',
    }) };
  };
  drawers.l2_lag_time = (model, colourOf, kit) => {
    const datasets = lines(model, kit, 'schedule_lag_max_s', {});
    return { type: 'line', data: { datasets }, options: kit.options({
      x: timeAxis(),
      y: { beginAtZero: true, ticks: { callback: kit.fmt.seconds } },
      label: (c) => c.dataset.label + ' max lag: ' + kit.fmt.seconds(c.parsed.y),
    }) };
  };
})();
