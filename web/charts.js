// Inline SVG charts of a queue's hours (getQueueHistory): bars and lines on a shared hour axis, each
// with a text summary for screen readers and a data table beside it.
import { h, s } from './dom.js';

const W = 640;
const H = 240;
const PAD = { left: 44, right: 12, top: 14, bottom: 30 };

const hourLabel = (iso) => `${String(new Date(iso).getHours()).padStart(2, '0')}h`;

/** A "nice" upper bound for an axis. */
function niceMax(max) {
  if (!(max > 0)) return 1;
  const step = 10 ** Math.floor(Math.log10(max));
  return [1, 2, 2.5, 5, 10].map((m) => m * step).find((v) => v >= max);
}

function frame(hours, max, unit) {
  const innerW = W - PAD.left - PAD.right;
  const innerH = H - PAD.top - PAD.bottom;
  const x = (i) => PAD.left + (i + 0.5) * (innerW / hours.length);
  const y = (v) => PAD.top + innerH - (v / max) * innerH;
  const grid = [0, 0.5, 1].map((f) => {
    const v = max * f;
    return s(
      'g',
      { class: 'grid' },
      s('line', { x1: PAD.left, x2: W - PAD.right, y1: y(v), y2: y(v) }),
      s('text', { x: PAD.left - 6, y: y(v) + 4, 'text-anchor': 'end' }, `${Math.round(v * 10) / 10}${unit}`),
    );
  });
  const every = Math.ceil(hours.length / 12);
  const labels = hours.map((b, i) =>
    i % every === 0
      ? s('text', { class: 'axis', x: x(i), y: H - 10, 'text-anchor': 'middle' }, hourLabel(b.start))
      : null,
  );
  return { x, y, band: innerW / hours.length, parts: [...grid, ...labels] };
}

function svg(title, summary, parts) {
  const id = `c${Math.random().toString(36).slice(2, 8)}`;
  return s(
    'svg',
    { viewBox: `0 0 ${W} ${H}`, role: 'img', 'aria-labelledby': `${id}-t ${id}-d`, class: 'chart' },
    s('title', { id: `${id}-t` }, title),
    s('desc', { id: `${id}-d` }, summary),
    ...parts,
  );
}

function legend(items) {
  return h(
    'ul',
    { class: 'legend' },
    items.map(([cls, label]) => h('li', {}, h('span', { class: `swatch ${cls}`, 'aria-hidden': 'true' }), label)),
  );
}

function table(caption, hours, columns) {
  return h(
    'details',
    { class: 'chart-data' },
    h('summary', {}, 'Data table'),
    h(
      'table',
      {},
      h('caption', {}, caption),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          h('th', { scope: 'col' }, 'Hour'),
          columns.map(([label]) => h('th', { scope: 'col' }, label)),
        ),
      ),
      h(
        'tbody',
        {},
        hours.map((b) =>
          h(
            'tr',
            {},
            h('th', { scope: 'row' }, hourLabel(b.start)),
            columns.map(([, get]) => h('td', {}, get(b) ?? '–')),
          ),
        ),
      ),
    ),
  );
}

/** Conclusions per hour: stacked bars of merged, failed and cancelled PRs. */
export function conclusionsChart(history) {
  const { hours, total } = history;
  const series = [
    ['merged', 'Merged'],
    ['failed', 'Failed'],
    ['cancelled', 'Cancelled'],
  ];
  const max = niceMax(Math.max(...hours.map((b) => b.merged + b.failed + b.cancelled)));
  const f = frame(hours, max, '');
  const bars = hours.flatMap((b, i) => {
    let base = 0;
    return series.map(([key]) => {
      const v = b[key];
      const rect =
        v > 0
          ? s(
              'rect',
              {
                class: `bar ${key}`,
                x: f.x(i) - f.band * 0.35,
                width: f.band * 0.7,
                y: f.y(base + v),
                height: f.y(base) - f.y(base + v),
              },
              s('title', {}, `${hourLabel(b.start)}: ${v} ${key}`),
            )
          : null;
      base += v;
      return rect;
    });
  });
  const summary = `In the last ${hours.length} hours: ${total.merged} merged, ${total.failed} failed, ${total.cancelled} cancelled.`;
  return h(
    'figure',
    { class: 'card' },
    h('figcaption', {}, 'Conclusions per hour'),
    svg('Conclusions per hour', summary, [...f.parts, ...bars]),
    legend(series),
    h('p', { class: 'muted' }, summary),
    table(
      'Conclusions per hour',
      hours,
      series.map(([key, label]) => [label, (b) => b[key]]),
    ),
  );
}

/** Time in queue per hour: lines of the median and the 95th percentile, in minutes. */
export function timeInQueueChart(history) {
  const { hours, total } = history;
  // Minutes, or seconds while every value is under two minutes.
  const top = Math.max(0, ...hours.map((b) => b.timeInQueueP95Seconds ?? 0));
  const [div, unit] = top < 120 ? [1, 's'] : [60, 'm'];
  const min = (v) => (v === null ? null : v / div);
  const max = niceMax(Math.max(...hours.map((b) => min(b.timeInQueueP95Seconds) ?? 0)));
  const f = frame(hours, max, unit);
  const line = (key, cls) => {
    const pts = hours.map((b, i) => [i, min(b[key])]).filter(([, v]) => v !== null);
    return [
      pts.length > 1
        ? s('polyline', { class: `line ${cls}`, points: pts.map(([i, v]) => `${f.x(i)},${f.y(v)}`).join(' ') })
        : null,
      ...pts.map(([i, v]) =>
        s(
          'circle',
          { class: `dot ${cls}`, cx: f.x(i), cy: f.y(v), r: 3.5 },
          s(
            'title',
            {},
            `${hourLabel(hours[i].start)}: ${cls} ${Math.round(v * 10) / 10} ${unit === 's' ? 's' : 'min'}`,
          ),
        ),
      ),
    ];
  };
  const fmt = (v) => (v === null ? 'no conclusions' : v < 120 ? `${Math.round(v)} s` : `${Math.round(v / 6) / 10} min`);
  const summary = `Over the period: median ${fmt(total.timeInQueueP50Seconds)}, 95th percentile ${fmt(total.timeInQueueP95Seconds)}.`;
  return h(
    'figure',
    { class: 'card' },
    h('figcaption', {}, 'Time in queue (p50 and p95)'),
    svg('Time in queue per hour', summary, [
      ...f.parts,
      ...line('timeInQueueP95Seconds', 'p95'),
      ...line('timeInQueueP50Seconds', 'p50'),
    ]),
    legend([
      ['p50', 'p50'],
      ['p95', 'p95'],
    ]),
    h('p', { class: 'muted' }, summary),
    table('Time in queue per hour, minutes', hours, [
      ['p50', (b) => (b.timeInQueueP50Seconds === null ? null : (b.timeInQueueP50Seconds / 60).toFixed(1))],
      ['p95', (b) => (b.timeInQueueP95Seconds === null ? null : (b.timeInQueueP95Seconds / 60).toFixed(1))],
    ]),
  );
}

/** CI runs per merge per hour (1.0 is the floor without batching; below 1 batches pay off). */
export function runsPerMergeChart(history) {
  const { hours, total } = history;
  const max = niceMax(Math.max(1, ...hours.map((b) => b.ciRunsPerMerge ?? 0)));
  const f = frame(hours, max, '');
  const bars = hours.map((b, i) =>
    b.ciRunsPerMerge === null
      ? null
      : s(
          'rect',
          {
            class: 'bar runs',
            x: f.x(i) - f.band * 0.35,
            width: f.band * 0.7,
            y: f.y(b.ciRunsPerMerge),
            height: f.y(0) - f.y(b.ciRunsPerMerge),
          },
          s(
            'title',
            {},
            `${hourLabel(b.start)}: ${b.ciRunsPerMerge} runs per merge (${b.ciRuns} runs, ${b.merged} merged)`,
          ),
        ),
  );
  const summary =
    total.ciRunsPerMerge === null
      ? `${total.ciRuns} CI runs and no merges yet.`
      : `Over the period: ${total.ciRuns} CI runs for ${total.merged} merges, ${total.ciRunsPerMerge} per merge.`;
  return h(
    'figure',
    { class: 'card' },
    h('figcaption', {}, 'CI runs per merge'),
    svg('CI runs per merge per hour', summary, [...f.parts, ...bars]),
    h('p', { class: 'muted' }, summary),
    table('CI runs per merge per hour', hours, [
      ['Runs', (b) => b.ciRuns],
      ['Merged', (b) => b.merged],
      ['Runs per merge', (b) => b.ciRunsPerMerge],
    ]),
  );
}
