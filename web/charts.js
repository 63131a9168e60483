// @ts-check
// Charts of a queue's hours (getQueueHistory) as Preact components: bars and lines on an hour axis,
// each with a text summary for screen readers and its data table beside it. A chart starts at the
// first hour with a conclusion or a CI run (showing at least the last 6 hours), so the few bars of a
// new queue are wide and readable; its title says the range drawn.
import { html } from './ui.js';

/** @typedef {import('../src/client/index.js').QueueHistory} QueueHistory */
/** @typedef {QueueHistory['hours'][number]} Hour */
/** @typedef {QueueHistory['total']} Totals */
/** @typedef {[label: string, value: (b: Totals) => string | number | null]} Column */

const W = 640;
const H = 240;
// Room on the left for a tick's label ("100s") at the phone's larger text (style.css).
const PAD = { left: 64, right: 12, top: 14, bottom: 30 };
/** The fewest hours a chart draws. */
const MIN_HOURS = 6;

const active = (/** @type {Hour} */ b) => b.merged + b.failed + b.cancelled + b.ciRuns > 0;

/** The hours a chart draws: from the first active one, at least the last MIN_HOURS. */
export function shownHours(/** @type {Hour[]} */ hours) {
  const first = hours.findIndex(active);
  const latest = Math.max(0, hours.length - MIN_HOURS);
  return hours.slice(first < 0 ? latest : Math.min(first, latest));
}

const pad2 = (/** @type {number} */ n) => String(n).padStart(2, '0');
const weekday = (/** @type {Date} */ d) => d.toLocaleDateString('en', { weekday: 'short' });

/** "14:00", or "Tue 14:00" when the range spans more than a day. */
function hourLabel(/** @type {string} */ iso, /** @type {boolean} */ days) {
  const d = new Date(iso);
  return `${days ? `${weekday(d)} ` : ''}${pad2(d.getHours())}:00`;
}

/** What a chart's title says of its range: "the last 6 hours", or "since Tue 14:00 (100 hours)". */
export function rangeLabel(/** @type {Hour[]} */ hours) {
  const n = hours.length;
  if (n <= 24) return `the last ${n} hour${n === 1 ? '' : 's'}`;
  return `since ${hourLabel(hours[0]?.start ?? '', true)} (${n} hours)`;
}

/**
 * The ticks of an axis from 0 past `max`: whole numbers a round step apart (1, 2, 5, 10, 20, 50 …),
 * at most four steps; the last tick is the axis's top.
 * @param {number} max
 * @returns {number[]}
 */
export function axisTicks(max) {
  const top = max > 0 ? max : 1;
  let step = 1;
  for (let p = 1; Math.ceil(top / step) > 4; p *= 10)
    step = [p, 2 * p, 5 * p].find((s) => Math.ceil(top / s) <= 4) ?? 10 * p;
  return Array.from({ length: Math.ceil(top / step) + 1 }, (_, i) => i * step);
}

/** The axes of `hours` for values up to `max`: x and y of values, the width of an hour, grid and labels. */
function frame(/** @type {Hour[]} */ hours, /** @type {number} */ max, /** @type {string} */ unit) {
  const innerW = W - PAD.left - PAD.right;
  const innerH = H - PAD.top - PAD.bottom;
  const band = innerW / hours.length;
  const ticks = axisTicks(max);
  const top = ticks.at(-1) ?? 1;
  const x = (/** @type {number} */ i) => PAD.left + (i + 0.5) * band;
  const y = (/** @type {number} */ v) => PAD.top + innerH - (v / top) * innerH;
  const grid = ticks.map(
    (v) => html`<g class="grid">
      <line x1=${PAD.left} x2=${W - PAD.right} y1=${y(v)} y2=${y(v)} />
      <text x=${PAD.left - 6} y=${y(v) + 5} text-anchor="end">${v}${unit}</text>
    </g>`,
  );
  // Over a day: a label at each midnight; otherwise every few hours.
  const days = hours.length > 24;
  const every = Math.ceil(hours.length / 8);
  const labels = hours.map((b, i) => {
    const d = new Date(b.start);
    const text = days
      ? d.getHours() === 0
        ? `${weekday(d)} ${d.getDate()}`
        : null
      : i % every === 0
        ? hourLabel(b.start, false)
        : null;
    return text === null ? null : html`<text class="axis" x=${x(i)} y=${H - 8} text-anchor="middle">${text}</text>`;
  });
  return { x, y, band, parts: [...grid, ...labels] };
}

/**
 * One chart: its title (with the range), the SVG with a text summary, a legend, and the data table
 * beside it listing the hours that had something.
 * @param {{ id: string, title: string, hours: Hour[], total: Totals, summary: string, parts: unknown[],
 *   legend?: [string, string][], columns: Column[] }} props
 */
function ChartCard({ id, title, hours, total, summary, parts, legend, columns }) {
  const days = hours.length > 24;
  const caption = `${title}, ${rangeLabel(hours)}`;
  const rows = hours.filter(active);
  return html`<figure class="card chart-card" id=${id} aria-labelledby=${`${id}-caption`}>
    <figcaption id=${`${id}-caption`}>${caption}</figcaption>
    <div class="chart-pair">
      <div class="chart-box">
        <svg viewBox=${`0 0 ${W} ${H}`} role="img" aria-labelledby=${`${id}-t ${id}-d`} class="chart">
          <title id=${`${id}-t`}>${caption}</title>
          <desc id=${`${id}-d`}>${summary}</desc>
          ${parts}
        </svg>
        ${
          legend &&
          html`<ul class="legend">
            ${legend.map(
              ([cls, label]) => html`<li><span class=${`swatch ${cls}`} aria-hidden="true"></span>${label}</li>`,
            )}
          </ul>`
        }
        <p class="muted small">${summary}</p>
      </div>
      <div class="chart-data" tabindex="0" role="region" aria-label=${`${title}: data table`}>
        <table>
          <caption class="visually-hidden">${caption}, hours with activity</caption>
          <thead>
            <tr>
              <th scope="col">Hour</th>
              ${columns.map(([label]) => html`<th scope="col" class="num">${label}</th>`)}
            </tr>
          </thead>
          <tbody>
            ${
              rows.length === 0
                ? html`<tr><td colspan=${columns.length + 1} class="muted">Nothing in these hours.</td></tr>`
                : rows.map(
                    (b) => html`<tr>
                      <th scope="row">${hourLabel(b.start, days)}</th>
                      ${columns.map(([, get]) => html`<td class="num">${get(b) ?? '–'}</td>`)}
                    </tr>`,
                  )
            }
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">Total</th>
              ${columns.map(([, get]) => html`<td class="num">${get(total) ?? '–'}</td>`)}
            </tr>
          </tfoot>
        </table>
      </div>
    </div>
  </figure>`;
}

const SERIES = /** @type {const} */ ([
  ['merged', 'Merged'],
  ['failed', 'Failed'],
  ['cancelled', 'Cancelled'],
]);

/** Conclusions per hour: stacked bars of merged, failed and cancelled PRs. */
export function ConclusionsChart(/** @type {{ history: QueueHistory }} */ { history }) {
  const hours = shownHours(history.hours);
  const { total } = history;
  const max = Math.max(...hours.map((b) => b.merged + b.failed + b.cancelled));
  const f = frame(hours, max, '');
  const bars = hours.flatMap((b, i) => {
    let base = 0;
    return SERIES.map(([key]) => {
      const v = b[key];
      const y0 = base;
      base += v;
      return v > 0
        ? html`<rect class=${`bar ${key}`} x=${f.x(i) - f.band * 0.35} width=${f.band * 0.7} y=${f.y(y0 + v)}
            height=${f.y(y0) - f.y(y0 + v)}><title>${hourLabel(b.start, hours.length > 24)}: ${v} ${key}</title></rect>`
        : null;
    });
  });
  const summary = `${total.merged} merged, ${total.failed} failed, ${total.cancelled} cancelled.`;
  return html`<${ChartCard}
    id="chart-conclusions"
    title="Conclusions per hour"
    hours=${hours}
    total=${total}
    summary=${summary}
    parts=${[...f.parts, ...bars]}
    legend=${SERIES}
    columns=${SERIES.map(([key, label]) => /** @type {Column} */ ([label, (b) => b[key]]))}
  />`;
}

/** Time in queue per hour: lines of the median and the 95th percentile, in seconds or minutes. */
export function TimeInQueueChart(/** @type {{ history: QueueHistory }} */ { history }) {
  const hours = shownHours(history.hours);
  const { total } = history;
  // Minutes, or seconds while every value is under two minutes.
  const top = Math.max(0, ...hours.map((b) => b.timeInQueueP95Seconds ?? 0));
  const [div, unit, word] = top < 120 ? [1, 's', 's'] : [60, 'm', 'min'];
  const inUnit = (/** @type {number | null} */ v) => (v === null ? null : Math.round((v / div) * 10) / 10);
  const max = Math.max(...hours.map((b) => inUnit(b.timeInQueueP95Seconds) ?? 0));
  const f = frame(hours, max, unit);
  const line = (/** @type {'timeInQueueP50Seconds' | 'timeInQueueP95Seconds'} */ key, /** @type {string} */ cls) => {
    const pts = /** @type {[number, number][]} */ (
      hours.map((b, i) => [i, inUnit(b[key])]).filter(([, v]) => v !== null)
    );
    return [
      pts.length > 1
        ? html`<polyline class=${`line ${cls}`} points=${pts.map(([i, v]) => `${f.x(i)},${f.y(v)}`).join(' ')} />`
        : null,
      ...pts.map(
        ([i, v]) =>
          html`<circle class=${`dot ${cls}`} cx=${f.x(i)} cy=${f.y(v)} r="4"><title>${hourLabel(hours[i]?.start ?? '', hours.length > 24)}: ${cls} ${v} ${word}</title></circle>`,
      ),
    ];
  };
  const fmt = (/** @type {number | null} */ v) =>
    v === null ? '–' : v < 120 ? `${Math.round(v)} s` : `${Math.round(v / 6) / 10} min`;
  const summary =
    total.timeInQueueP50Seconds === null
      ? 'No conclusions in these hours.'
      : `Median ${fmt(total.timeInQueueP50Seconds)}, 95th percentile ${fmt(total.timeInQueueP95Seconds)} (admission to conclusion).`;
  return html`<${ChartCard}
    id="chart-time-in-queue"
    title="Time in queue (p50 and p95)"
    hours=${hours}
    total=${total}
    summary=${summary}
    parts=${[...f.parts, ...line('timeInQueueP95Seconds', 'p95'), ...line('timeInQueueP50Seconds', 'p50')]}
    legend=${[['p50', 'p50 (median)'], ['p95', 'p95']]}
    columns=${[
      [`p50, ${word}`, (/** @type {Totals} */ b) => inUnit(b.timeInQueueP50Seconds)],
      [`p95, ${word}`, (/** @type {Totals} */ b) => inUnit(b.timeInQueueP95Seconds)],
    ]}
  />`;
}

/** CI runs per merge per hour (1.0 is the floor without batching; below 1 batches pay off). */
export function RunsPerMergeChart(/** @type {{ history: QueueHistory }} */ { history }) {
  const hours = shownHours(history.hours);
  const { total } = history;
  const max = Math.max(1, ...hours.map((b) => b.ciRunsPerMerge ?? 0));
  const f = frame(hours, max, '');
  const bars = hours.map((b, i) =>
    b.ciRunsPerMerge === null
      ? null
      : html`<rect class="bar runs" x=${f.x(i) - f.band * 0.35} width=${f.band * 0.7} y=${f.y(b.ciRunsPerMerge)}
          height=${f.y(0) - f.y(b.ciRunsPerMerge)}><title>${hourLabel(b.start, hours.length > 24)}: ${b.ciRunsPerMerge} runs per merge (${b.ciRuns} runs, ${b.merged} merged)</title></rect>`,
  );
  const summary =
    total.ciRunsPerMerge === null
      ? `${total.ciRuns} CI runs and no merges yet.`
      : `${total.ciRuns} CI runs for ${total.merged} merges: ${total.ciRunsPerMerge} per merge.`;
  return html`<${ChartCard}
    id="chart-runs-per-merge"
    title="CI runs per merge"
    hours=${hours}
    total=${total}
    summary=${summary}
    parts=${[...f.parts, ...bars]}
    columns=${[
      ['Runs', (/** @type {Totals} */ b) => b.ciRuns],
      ['Merged', (/** @type {Totals} */ b) => b.merged],
      ['Per merge', (/** @type {Totals} */ b) => b.ciRunsPerMerge],
    ]}
  />`;
}

/** The three charts of a queue's history; a sentence instead while its hours hold nothing. */
export function HistoryCharts(/** @type {{ history: QueueHistory }} */ { history }) {
  if (!history.hours.some(active))
    return html`<p class="empty" id="charts-empty">
      Nothing concluded in the last ${history.hours.length} hours: the charts appear once a PR merges, fails or is
      cancelled.
    </p>`;
  return html`<div class="charts">
    <${ConclusionsChart} history=${history} />
    <${TimeInQueueChart} history=${history} />
    <${RunsPerMergeChart} history=${history} />
  </div>`;
}
