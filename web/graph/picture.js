// @ts-check
// What the queue graph shows of one queue activity, as data (no Preact, no DOM): the lanes of test runs
// and waiting PRs in merge order, the PRs not ready, the latest concluded PRs leaving. layout.js places
// it, words.js says it, ../graph.js draws it.

/** @typedef {import('../../src/client/index.js').QueueActivity} QueueActivity */
/** @typedef {QueueActivity['testRuns'][number]} Run */
/** @typedef {QueueActivity['pullRequests'][number]} QueuedPr */
/** @typedef {QueueActivity['recentPullRequests'][number]} RecentPr */

/**
 * One PR as drawn: `state` is its state in capitals, `word` how the picture writes it, `why` the
 * server's sentence of why it is there (what it waits on, or why it concluded).
 * @typedef {{ number: number, title: string, state: string, word: string, why: string }} DrawnPr
 */
/**
 * A box of PRs that move together: a test run in flight, PRs whose tests passed in one run, or one PR
 * waiting alone.
 * @typedef {{
 *   key: string,
 *   kind: 'run' | 'passed' | 'waiting',
 *   nodes: DrawnPr[],
 *   run: Run | null,
 *   after: number | null,
 *   onTopOf: number[],
 *   mergedSince: number[],
 * }} Item
 * `after`: the PR the item is built on (its run's last predicted base PR still queued), null for the
 * target itself; `onTopOf`: the run's predicted base PRs still queued; `mergedSince`: its predicted base
 * PRs that have merged since the run started (they are in the target now, not pending under it).
 */
/** @typedef {{ lane: number | null, items: Item[] }} Lane */
/**
 * @typedef {{
 *   lanes: Lane[],
 *   notReady: DrawnPr[],
 *   leaving: DrawnPr[],
 *   runs: number,
 *   waiting: number,
 * }} Picture
 */

/** How many concluded PRs are shown leaving. */
const LEAVING = 4;
const WORDS = /** @type {Record<string, string>} */ ({
  PENDING: 'waiting',
  TESTING: 'testing',
  TESTS_PASSED: 'passed',
  PENDING_FAILURE: 'failing',
  NOT_READY: 'not ready',
  MERGED: 'merged',
  FAILED: 'failed',
  CANCELLED: 'cancelled',
});
const upper = (/** @type {string} */ s) => s.toUpperCase();

/**
 * What the picture shows, from one activity: lanes of items in queue order, the PRs not ready, the
 * PRs leaving. A run's predicted base PRs that merged since it started are not drawn under it: they
 * are part of the target now (the activity keeps them in `dependentPrs`, the content of the run's test
 * commit).
 * @param {QueueActivity} activity
 * @returns {Picture}
 */
export function picture(activity) {
  const queued = new Map(activity.pullRequests.map((p) => [p.prNumber, p]));
  const concluded = new Map(activity.recentPullRequests.map((p) => [p.prNumber, p]));
  /** @type {Map<number, Run>} */
  const runOf = new Map();
  for (const run of activity.testRuns) for (const n of run.prNumbers) if (!runOf.has(n)) runOf.set(n, run);
  /** @type {(p: QueuedPr | RecentPr, run?: Run) => DrawnPr} */
  const node = (p, run) => {
    const state = upper(p.state);
    const word = run?.status === 'creating' ? 'building' : (WORDS[state] ?? state.toLowerCase());
    const why = 'waitingOn' in p && p.waitingOn ? p.waitingOn.message : p.explanation.message;
    return { number: p.prNumber, title: p.prTitle, state, word, why };
  };
  /** @type {Map<string, Lane>} */
  const lanes = new Map();
  /** @type {Map<string, Item>} */
  const items = new Map();
  /** @type {DrawnPr[]} */
  const notReady = [];
  let last = /** @type {Item | null} */ (null);
  for (const p of activity.pullRequests) {
    const state = upper(p.state);
    if (state === 'NOT_READY') {
      notReady.push(node(p));
      continue;
    }
    const run = runOf.get(p.prNumber);
    const key = run
      ? `run-${run.testRunId}`
      : state === 'TESTS_PASSED' && p.testRunId
        ? `passed-${p.testRunId}`
        : `pr-${p.prNumber}`;
    const existing = items.get(key);
    // PRs whose tests passed together stay one box only while they are next to each other.
    if (existing && (existing.kind === 'run' || existing === last)) {
      existing.nodes.push(node(p, run));
      continue;
    }
    const laneOf = activity.mode === 'parallel' ? (run?.lane ?? p.lane) : null;
    if (!lanes.has(String(laneOf))) lanes.set(String(laneOf), { lane: laneOf, items: [] });
    const lane = /** @type {Lane} */ (lanes.get(String(laneOf)));
    const onTopOf = run ? run.dependentPrs.filter((n) => queued.has(n)) : [];
    const before = lane.items.at(-1);
    /** @type {Item} */
    const item = {
      key: items.has(key) ? `${key}-${p.prNumber}` : key,
      kind: run ? 'run' : state === 'TESTS_PASSED' ? 'passed' : 'waiting',
      nodes: [node(p, run)],
      run: run ?? null,
      after: run ? (onTopOf.at(-1) ?? null) : (before?.nodes.at(-1)?.number ?? null),
      onTopOf,
      mergedSince: run
        ? run.dependentPrs.filter((n) => !queued.has(n) && upper(concluded.get(n)?.state ?? 'MERGED') === 'MERGED')
        : [],
    };
    items.set(item.key, item);
    lane.items.push(item);
    last = item;
  }
  const leaving = activity.recentPullRequests
    .filter((p) => !queued.has(p.prNumber))
    .slice(0, LEAVING)
    .map((p) => node(p));
  const all = [...items.values()];
  return {
    lanes: [...lanes.values()],
    notReady,
    leaving,
    runs: all.filter((i) => i.kind === 'run').length,
    waiting: all.filter((i) => i.kind === 'waiting').reduce((n, i) => n + i.nodes.length, 0),
  };
}
