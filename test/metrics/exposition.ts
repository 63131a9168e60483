/**
 * Reading a scrape: the text parsed by parse-prometheus-text-format, and a promtool-style lint of
 * the raw text (`lint` returns the problems, none for a valid exposition).
 */
import parsePrometheusTextFormat from 'parse-prometheus-text-format';

export interface Series {
  labels: Record<string, string>;
  value: number;
}

export interface Exposition {
  /** HELP and TYPE of each family, by family name. */
  families: Map<string, { help: string; type: string }>;
  /** Every sample named `name` (a histogram's are `<name>_bucket`, `_sum`, `_count`). */
  series(name: string): Series[];
  /** The value of the one sample `name` with exactly `labels`; undefined when absent. */
  value(name: string, labels: Record<string, string>): number | undefined;
}

const sameLabels = (a: Record<string, string>, b: Record<string, string>): boolean =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);

export function readExposition(text: string): Exposition {
  const families = new Map(
    parsePrometheusTextFormat(text).map((f) => [f.name, { help: f.help, type: f.type.toLowerCase() }]),
  );
  // The library folds the buckets of every label set of a histogram into one (it follows prom2json
  // for unlabelled histograms only), so histograms are read as their three sample series instead,
  // which it returns as a run of untyped families (`_bucket`, `_sum`, `_count` per label set).
  const flat = parsePrometheusTextFormat(text.replace(/^# TYPE (\S+) histogram$/gm, '# TYPE $1 untyped'));
  const samples = new Map<string, Series[]>();
  for (const f of flat) {
    const list = samples.get(f.name) ?? [];
    samples.set(f.name, list.concat(f.metrics.map((s) => ({ labels: s.labels ?? {}, value: Number(s.value) }))));
  }
  const series = (name: string) => samples.get(name) ?? [];
  return {
    families,
    series,
    value: (name, labels) => series(name).find((s) => sameLabels(s.labels, labels))?.value,
  };
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES = ['counter', 'gauge', 'histogram', 'summary', 'untyped'];
const SAMPLE = /^([^\s{]+)(?:\{(.*)\})?\s+(\S+)(?:\s+(-?\d+))?$/;
const LABEL = /([^\s=,]+)="((?:[^"\\]|\\.)*)"(,|$)/y;
const VALUE = /^([+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?|[+-]Inf|NaN)$/;

function labelsOf(text: string): Record<string, string> | null {
  const out: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < text.length) {
    const m = LABEL.exec(text);
    if (!m) return null;
    out[m[1]] = m[2];
  }
  return out;
}

/** The family a sample belongs to: a histogram's suffixed samples belong to the histogram. */
function familyOf(name: string, types: Map<string, string>): string {
  for (const suffix of ['_bucket', '_sum', '_count']) {
    const base = name.slice(0, -suffix.length);
    if (name.endsWith(suffix) && types.get(base) === 'histogram') return base;
  }
  return name;
}

/**
 * The checks `promtool check metrics` makes on text format 0.0.4 that apply here: HELP and TYPE at
 * most once per family and before its samples, every family with HELP text, a family's samples
 * together, valid metric and label names and values, no duplicate series; per histogram label set:
 * ascending `le` with cumulative counts, a `+Inf` bucket equal to `_count`, and a `_sum`.
 * (Not checked: promtool's naming advice on `_total`, which the contract's gauge names break.)
 */
export function lint(text: string): string[] {
  const problems: string[] = [];
  const help = new Set<string>();
  const types = new Map<string, string>();
  const done = new Set<string>();
  const seen = new Set<string>();
  const sampled = new Set<string>();
  const hist = new Map<string, { buckets: [number, number][]; count?: number; sum?: number }>();
  let current: string | null = null;
  const enter = (family: string, line: number) => {
    if (family === current) return;
    if (done.has(family)) problems.push(`line ${line}: ${family} continues after other families`);
    if (current !== null) done.add(current);
    current = family;
  };
  text.split('\n').forEach((raw, i) => {
    const line = i + 1;
    if (raw === '') return;
    const meta = /^# (HELP|TYPE) (\S+)(?: (.*))?$/.exec(raw);
    if (meta) {
      const [, kind, name, rest = ''] = meta;
      if (!METRIC_NAME.test(name)) problems.push(`line ${line}: invalid metric name ${name}`);
      enter(name, line);
      if (sampled.has(name)) problems.push(`line ${line}: ${kind} of ${name} after its samples`);
      if (kind === 'HELP') {
        if (help.has(name)) problems.push(`line ${line}: second HELP for ${name}`);
        if (rest.trim() === '') problems.push(`line ${line}: ${name} has no help text`);
        help.add(name);
      } else {
        if (types.has(name)) problems.push(`line ${line}: second TYPE for ${name}`);
        if (!TYPES.includes(rest)) problems.push(`line ${line}: unknown type ${rest} for ${name}`);
        types.set(name, rest);
      }
      return;
    }
    if (raw.startsWith('#')) return;
    const m = SAMPLE.exec(raw);
    const labels = m && labelsOf(m[2] ?? '');
    if (!m || !labels) {
      problems.push(`line ${line}: not a sample: ${raw}`);
      return;
    }
    const [, name, , value] = m;
    if (!METRIC_NAME.test(name)) problems.push(`line ${line}: invalid metric name ${name}`);
    for (const label of Object.keys(labels)) {
      if (!LABEL_NAME.test(label) || label.startsWith('__')) problems.push(`line ${line}: invalid label name ${label}`);
    }
    if (!VALUE.test(value)) problems.push(`line ${line}: invalid value ${value}`);
    const family = familyOf(name, types);
    enter(family, line);
    sampled.add(family);
    if (!help.has(family)) problems.push(`line ${line}: ${family} has samples but no HELP`);
    const key = `${name}{${Object.entries(labels)
      .sort()
      .map(([k, v]) => `${k}=${v}`)
      .join(',')}}`;
    if (seen.has(key)) problems.push(`line ${line}: duplicate series ${key}`);
    seen.add(key);
    if (types.get(family) !== 'histogram') return;
    const { le, ...rest } = labels;
    const setKey = `${family}{${Object.entries(rest)
      .sort()
      .map(([k, v]) => `${k}=${v}`)
      .join(',')}}`;
    const h = hist.get(setKey) ?? { buckets: [] };
    hist.set(setKey, h);
    if (name.endsWith('_bucket')) {
      if (le === undefined) problems.push(`line ${line}: bucket without le`);
      else h.buckets.push([le === '+Inf' ? Infinity : Number(le), Number(value)]);
    } else if (name.endsWith('_count')) {
      h.count = Number(value);
    } else {
      h.sum = Number(value);
    }
  });
  for (const [key, h] of hist) {
    const les = h.buckets.map(([le]) => le);
    if (les.some((le, i) => i > 0 && le <= les[i - 1])) problems.push(`${key}: le not ascending`);
    if (h.buckets.some(([, n], i) => i > 0 && n < h.buckets[i - 1][1])) problems.push(`${key}: buckets not cumulative`);
    const inf = h.buckets.find(([le]) => le === Infinity);
    if (!inf) problems.push(`${key}: no +Inf bucket`);
    else if (inf[1] !== h.count) problems.push(`${key}: +Inf bucket ${inf[1]} != _count ${h.count}`);
    if (h.sum === undefined) problems.push(`${key}: no _sum`);
  }
  return problems;
}
