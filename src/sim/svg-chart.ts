/**
 * An SVG chart of a simulation: queue depth (top) and merges per hour (bottom) over simulated time,
 * with the warm-up and the drain after the last arrival shaded. Plain SVG 1.1, no scripts or fonts
 * to fetch, so it opens anywhere and diffs as text.
 */
import type { Series } from './metrics.js';

const WIDTH = 900;
const PANEL = 190;
const LEFT = 64;
const RIGHT = 20;
const TOP = 92;
const GAP = 56;
const PLOT_W = WIDTH - LEFT - RIGHT;
/** Columns the depth line is drawn at: the peak depth within each. */
const COLUMNS = 400;

/** `subtitle` lines go under the title (the workload, the queue settings). */
export function renderChart(series: Series, title: string, subtitle: readonly string[]): string {
  const end = Math.max(series.depth.length > 0 ? series.depth[series.depth.length - 1][0] : 0, series.windowEnd, 1);
  const x = (minutes: number): number => LEFT + (minutes / end) * PLOT_W;
  const depth = peaks(series.depth, end);
  const bucket = niceStep(end / 60);
  const rates = throughput(series.merges, end, bucket);
  const depthTop = TOP;
  const rateTop = TOP + PANEL + GAP;
  const height = rateTop + PANEL + 44;
  const maxDepth = niceCeil(Math.max(1, ...depth));
  const maxRate = niceCeil(Math.max(1, ...rates.map((r) => r.perHour)));
  const yDepth = (v: number): number => depthTop + PANEL - (v / maxDepth) * PANEL;
  const yRate = (v: number): number => rateTop + PANEL - (v / maxRate) * PANEL;

  const out: string[] = [];
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="12">`,
  );
  out.push(`<rect width="${WIDTH}" height="${height}" fill="#ffffff"/>`);
  out.push(`<text x="${LEFT}" y="22" font-size="15" font-weight="bold">${escapeXml(title)}</text>`);
  subtitle.forEach((line, i) => {
    out.push(`<text x="${LEFT}" y="${42 + 16 * i}" fill="#555555">${escapeXml(line)}</text>`);
  });
  for (const top of [depthTop, rateTop]) {
    if (series.windowStart > 0) out.push(shade(x(0), x(series.windowStart), top, 'warm-up'));
    if (series.windowEnd < end) out.push(shade(x(series.windowEnd), x(end), top, 'draining'));
  }
  out.push(...axes(depthTop, maxDepth, end, 'PRs in queue (peak)'));
  out.push(...axes(rateTop, maxRate, end, `merges per hour (${bucket} min buckets)`));
  const step = end / COLUMNS;
  const line = depth
    .map(
      (v, i) =>
        `${i === 0 ? 'M' : 'L'}${x(i * step).toFixed(1)},${yDepth(v).toFixed(1)}H${x((i + 1) * step).toFixed(1)}`,
    )
    .join('');
  out.push(`<path d="${line}" fill="none" stroke="#2563eb" stroke-width="1.5"/>`);
  for (const r of rates) {
    const y = yRate(r.perHour);
    out.push(
      `<rect x="${x(r.from).toFixed(1)}" y="${y.toFixed(1)}" width="${Math.max(0.5, x(r.to) - x(r.from) - 0.5).toFixed(1)}" height="${(rateTop + PANEL - y).toFixed(1)}" fill="#16a34a"/>`,
    );
  }
  out.push(`<text x="${LEFT + PLOT_W / 2}" y="${height - 8}" text-anchor="middle">simulated time (hours)</text>`);
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

function axes(top: number, max: number, end: number, label: string): string[] {
  const out = [`<text x="${LEFT}" y="${top - 8}" font-weight="bold">${escapeXml(label)}</text>`];
  for (let i = 0; i <= 4; i++) {
    const v = (max * i) / 4;
    const y = top + PANEL - (PANEL * i) / 4;
    out.push(`<line x1="${LEFT}" x2="${LEFT + PLOT_W}" y1="${y}" y2="${y}" stroke="#e5e7eb"/>`);
    out.push(`<text x="${LEFT - 6}" y="${y + 4}" text-anchor="end">${+v.toFixed(1)}</text>`);
  }
  const hours = end / 60;
  const tick = niceStep(hours / 8);
  for (let h = 0; h <= hours + 1e-9; h += tick) {
    const px = LEFT + ((h * 60) / end) * PLOT_W;
    out.push(`<line x1="${px}" x2="${px}" y1="${top + PANEL}" y2="${top + PANEL + 4}" stroke="#333333"/>`);
    out.push(`<text x="${px}" y="${top + PANEL + 16}" text-anchor="middle">${+h.toFixed(2)}</text>`);
  }
  out.push(`<line x1="${LEFT}" x2="${LEFT + PLOT_W}" y1="${top + PANEL}" y2="${top + PANEL}" stroke="#333333"/>`);
  out.push(`<line x1="${LEFT}" x2="${LEFT}" y1="${top}" y2="${top + PANEL}" stroke="#333333"/>`);
  return out;
}

function shade(x0: number, x1: number, top: number, label: string): string {
  return (
    `<rect x="${x0.toFixed(1)}" y="${top}" width="${Math.max(0, x1 - x0).toFixed(1)}" height="${PANEL}" fill="#f3f4f6"/>` +
    `<text x="${((x0 + x1) / 2).toFixed(1)}" y="${top + 14}" text-anchor="middle" fill="#9ca3af" font-size="10">${label}</text>`
  );
}

/** Peak of a step function within each of COLUMNS equal columns of [0, end]. */
function peaks(steps: readonly [number, number][], end: number): number[] {
  const out = new Array<number>(COLUMNS).fill(0);
  const col = (t: number): number => Math.min(COLUMNS - 1, Math.floor((t / end) * COLUMNS));
  for (let i = 0; i < steps.length; i++) {
    const [t, v] = steps[i];
    const until = i + 1 < steps.length ? steps[i + 1][0] : end;
    for (let c = col(t); c <= col(until); c++) out[c] = Math.max(out[c], v);
  }
  return out;
}

function throughput(
  merges: readonly number[],
  end: number,
  bucket: number,
): { from: number; to: number; perHour: number }[] {
  const n = Math.max(1, Math.ceil(end / bucket));
  const counts = new Array<number>(n).fill(0);
  for (const m of merges) counts[Math.min(n - 1, Math.floor(m / bucket))]++;
  return counts.map((c, i) => {
    const from = i * bucket;
    const to = Math.min(end, from + bucket);
    return { from, to, perHour: to > from ? (c * 60) / (to - from) : 0 };
  });
}

/** The smallest of 1, 2, 5 × 10^k (and 15, 30, 60 … for minutes) at least `raw`. */
function niceStep(raw: number): number {
  const candidates = [1, 2, 5, 10, 15, 30, 60, 120, 240, 480, 720, 1440];
  for (const c of candidates) if (c >= raw) return c;
  return Math.ceil(raw / 1440) * 1440;
}

function niceCeil(v: number): number {
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}
