// @ts-check
// The queue as a live picture: the target branch's tip on the left, each lane's test runs in flight
// to its right in merge order (a run's PRs in one box: a batch is a box of several; bisection runs are
// marked), the PRs waiting behind them, the PRs not ready yet underneath, and the latest concluded PRs
// leaving on the far left. Every PR is a link to its page; a text alternative says the same in words.
import { prHref } from './links.js';
import { html, useLayoutEffect, useMemo, useRef } from './ui.js';

/** @typedef {import('../src/client/index.js').QueueActivity} QueueActivity */
/** @typedef {QueueActivity['testRuns'][number]} Run */
/** @typedef {QueueActivity['pullRequests'][number]} QueuedPr */
/** @typedef {QueueActivity['recentPullRequests'][number]} RecentPr */
/** @typedef {{ repo: import('../src/client/index.js').RepoRef, targetBranch: string }} QueueKey */

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
/** Marks of concluded PRs, beside the word (the word carries the meaning). */
const MARKS = /** @type {Record<string, string>} */ ({ MERGED: '✓ ', FAILED: '✗ ', CANCELLED: '– ' });
const upper = (/** @type {string} */ s) => s.toUpperCase();
const short = (/** @type {string | null} */ sha) => (sha ? sha.slice(0, 8) : '–');
const list = (/** @type {number[]} */ ns) => ns.map((n) => `#${n}`).join(', ');

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

// ------------------------------------------------------------------------------ drawing

const NODE_W = 156;
const NODE_H = 46;
const GAP = 8; // between the PRs of one box
const PAD = 8; // inside a box
const HEAD = 34; // a run's label, above its PRs inside its box
const STEP = 44; // between items of a lane: room for the arrow
const LANE_LABEL = 22;
const ROW_H = LANE_LABEL + HEAD + NODE_H + 2 * PAD + 18;
const MARGIN = 12;
const TRUNK_W = 104;
const LEAVE_W = 150;
const LEAVE_H = 30;
const TITLE_CHARS = 20;
/** A PR waiting at the back of its lane: its number only. */
const CHIP_W = 58;
const CHIP_H = 30;
/** How far below the row an arrow that skips items dips (its control points). */
const ARC = 60;

const clip = (/** @type {string} */ s, /** @type {number} */ n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** How an item's run is described: its kind, its size, its state, its retries. */
function runLabel(/** @type {Item} */ item) {
  const run = /** @type {Run} */ (item.run);
  const n = item.nodes.length;
  const kind = run.queueType === 'bisection' ? `Bisection${n > 1 ? ` of ${n}` : ''}` : n > 1 ? `Batch of ${n}` : 'Run';
  const state = run.status === 'creating' ? 'building' : 'testing';
  return { kind, state, retries: run.retries };
}

/**
 * The sentence of a run, for its accessible label and its tooltip: e.g. "Batch of 3, run 1a2b3c4d:
 * testing #4, #5, #6 on top of #3 (built on #1, merged since); retry 1".
 */
function runSentence(/** @type {Item} */ item, /** @type {string} */ branch) {
  const run = /** @type {Run} */ (item.run);
  const { kind, state, retries } = runLabel(item);
  const id = short(run.testRunId);
  return [
    `${kind === 'Run' ? `Run ${id}` : `${kind}, run ${id}`}: ${state === 'building' ? 'building the test commit of' : 'testing'}`,
    ` ${list(item.nodes.map((n) => n.number))}`,
    item.onTopOf.length ? ` on top of ${list(item.onTopOf)}` : ` on ${branch}`,
    item.mergedSince.length ? ` (built on ${list(item.mergedSince)}, merged since)` : '',
    run.queueType === 'bisection' ? '; bisection of a failed batch' : '',
    retries > 0 ? `; retry ${retries}` : '',
  ].join('');
}

/**
 * One PR: a link to its page, with its number, state and title. Its <title> is its accessible name and
 * tooltip ("#12 Add gift cards, testing"), its <desc> says why it is there.
 * @param {{ queueKey: QueueKey, node: DrawnPr, x: number, y: number, cls?: string, w?: number, h?: number }} props
 */
function PrNode({ queueKey, node, x, y, cls = '', w = NODE_W, h = NODE_H }) {
  const name = `#${node.number} ${node.title}, ${node.word}`;
  const compact = h < NODE_H;
  const chip = w < NODE_W - 40;
  const mark = MARKS[node.state] ?? '';
  return html`<a
    href=${prHref(queueKey, node.number)}
    class=${`qg-pr s-${node.state.toLowerCase()} ${cls}`}
    data-pr=${node.number}
    data-state=${node.state}
  >
    <title>${name}</title>
    <desc>${node.why}</desc>
    <rect class="qg-ring" x=${x - 4} y=${y - 4} width=${w + 8} height=${h + 8} rx="12" />
    <rect class="qg-shape" x=${x} y=${y} width=${w} height=${h} rx="8" />
    <text class="qg-num" x=${x + 10} y=${y + (compact ? 20 : 19)}>#${node.number}</text>
    ${chip ? null : html`<text class="qg-word" x=${x + w - 10} y=${y + (compact ? 20 : 19)} text-anchor="end">${mark}${node.word}</text>`}
    ${compact ? null : html`<text class="qg-title" x=${x + 10} y=${y + 37}>${clip(node.title, TITLE_CHARS)}</text>`}
  </a>`;
}

/**
 * An arrow from (x1, y1) to (x2, y2); over the row when it skips items between.
 * @param {{ x1: number, y1: number, x2: number, y2: number, dashed?: boolean }} props
 */
function Edge({ x1, y1, x2, y2, dashed = false }) {
  const skip = x2 - x1 > STEP + 2;
  const d = skip
    ? `M${x1},${y1} C${x1 + 40},${y1 + ARC} ${x2 - 40},${y2 + ARC} ${x2},${y2}`
    : `M${x1},${y1} C${(x1 + x2) / 2},${y1} ${(x1 + x2) / 2},${y2} ${x2},${y2}`;
  return html`<path class=${`qg-edge${dashed ? ' dashed' : ''}`} d=${d} marker-end="url(#qg-arrow)" />`;
}

/**
 * The queue of `activity` as an SVG picture, re-drawn from each new activity. Keys are the PRs' and
 * runs' own ids, so a focused PR keeps its element; when a PR moves to another box (it starts testing),
 * focus follows it to its new element.
 * @param {{ queueKey: QueueKey, activity: QueueActivity }} props
 */
export function QueueGraph({ queueKey, activity }) {
  const root = useRef(/** @type {HTMLDivElement | null} */ (null));
  const pic = useMemo(() => picture(activity), [activity]);
  // The PR focused before this drawing: after it, its (maybe new) element gets the focus back.
  const active = document.activeElement;
  const focusedPr = root.current?.contains(active) ? active?.getAttribute('data-pr') : null;
  // Where the target's tip is drawn. On a screen too narrow to show it and two groups after it, the
  // picture first scrolls there (once, when it is first shown: live updates never move it), the PRs
  // leaving being to its left.
  const trunkX = pic.leaving.length ? MARGIN + LEAVE_W + 36 : MARGIN;
  const lanesX = trunkX + TRUNK_W + 40;
  const scroller = useRef(/** @type {HTMLDivElement | null} */ (null));
  const scrolled = useRef(false);
  useLayoutEffect(() => {
    const box = scroller.current;
    if (scrolled.current || !box?.isConnected) return;
    scrolled.current = true;
    if (box.clientWidth < lanesX + 2 * (NODE_W + STEP)) box.scrollLeft = trunkX - MARGIN;
  });
  useLayoutEffect(() => {
    if (!focusedPr || !root.current || root.current.contains(document.activeElement)) return;
    const again = root.current.querySelector(`[data-pr="${focusedPr}"]`);
    if (again instanceof SVGElement) again.focus({ preventScroll: true });
  });

  const branch = queueKey.targetBranch;
  const leaveX = MARGIN;
  const parallel = activity.mode === 'parallel';
  const rows = Math.max(1, pic.lanes.length);
  const lanesH = rows * ROW_H;
  const notReadyY = MARGIN + lanesH;
  // The trunk reaches every lane and every leaving PR that merged into it.
  const trunkH = Math.max(lanesH - 18, LANE_LABEL + pic.leaving.length * (LEAVE_H + 10));
  const height = Math.max(
    notReadyY + (pic.notReady.length ? LANE_LABEL + NODE_H + 20 : 0),
    MARGIN + LANE_LABEL + pic.leaving.length * (LEAVE_H + 10) + 10,
  );
  /** @type {Map<number, { x: number, y: number }>} where each PR's node ends: its arrows start there */
  const ends = new Map();
  /** @type {any[]} */
  const laneParts = [];
  let width = lanesX;
  pic.lanes.forEach((lane, row) => {
    const top = MARGIN + row * ROW_H;
    const nodeY = top + LANE_LABEL + HEAD + PAD;
    const mid = nodeY + NODE_H / 2;
    let x = lanesX;
    /** @type {any[]} */
    const parts = [];
    /** @type {any[]} */
    const edges = [];
    // The PRs waiting at the back of the lane are drawn small, in a block of two rows.
    let back = lane.items.length;
    while (back > 0 && lane.items[back - 1]?.kind === 'waiting') back--;
    for (const item of lane.items.slice(0, back)) {
      const boxed = item.kind !== 'waiting';
      const w = item.nodes.length * NODE_W + (item.nodes.length - 1) * GAP + (boxed ? 2 * PAD : 0);
      const from = item.after === null ? { x: trunkX + TRUNK_W, y: mid } : ends.get(item.after);
      if (from)
        edges.push(
          html`<${Edge} key=${`e-${item.key}`} x1=${from.x} y1=${from.y} x2=${x} y2=${mid} dashed=${item.kind === 'waiting'} />`,
        );
      const nodes = item.nodes.map((n, i) => {
        const nx = x + (boxed ? PAD : 0) + i * (NODE_W + GAP);
        ends.set(n.number, { x: boxed ? x + w : nx + NODE_W, y: mid });
        return html`<${PrNode} key=${`pr-${n.number}`} queueKey=${queueKey} node=${n} x=${nx} y=${nodeY} />`;
      });
      if (item.kind === 'run') {
        const run = /** @type {Run} */ (item.run);
        const { kind, state, retries } = runLabel(item);
        const sentence = runSentence(item, branch);
        parts.push(html`<g
          key=${item.key}
          class=${`qg-run ${run.queueType === 'bisection' ? 'bisection' : 'main'}${run.status === 'creating' ? ' creating' : ''}${item.nodes.length > 1 ? ' batch' : ''}`}
          data-run=${run.testRunId}
          data-queue-type=${run.queueType}
          role="group"
          aria-label=${sentence}
        >
          <title>${sentence}</title>
          <rect class="qg-box" x=${x} y=${top + LANE_LABEL} width=${w} height=${HEAD + NODE_H + 2 * PAD} rx="10" />
          <text class="qg-run-kind" x=${x + PAD + 2} y=${top + LANE_LABEL + 16} aria-hidden="true">${kind} · ${state}</text>
          <text class="qg-run-id" x=${x + PAD + 2} y=${top + LANE_LABEL + 29} aria-hidden="true">
            ${short(run.testRunId)}${retries > 0 ? ` · retry ${retries}` : ''}
          </text>
          ${nodes}
        </g>`);
      } else if (item.kind === 'passed') {
        parts.push(html`<g key=${item.key} class="qg-passed" role="group" aria-label=${`Tests passed: ${list(item.nodes.map((n) => n.number))}, merging`}>
          <rect class="qg-box" x=${x} y=${top + LANE_LABEL} width=${w} height=${HEAD + NODE_H + 2 * PAD} rx="10" />
          <text class="qg-run-kind" x=${x + PAD + 2} y=${top + LANE_LABEL + 16} aria-hidden="true">Passed · merging</text>
          ${nodes}
        </g>`);
      } else {
        parts.push(html`<g key=${item.key} class="qg-waiting">${nodes}</g>`);
      }
      x += w + STEP;
    }
    const waiting = lane.items.slice(back).flatMap((i) => i.nodes);
    if (waiting.length) {
      const rows = waiting.length > 2 ? 2 : 1;
      const chipsTop = rows === 2 ? mid - CHIP_H - 4 : mid - CHIP_H / 2;
      const previous = lane.items[back - 1]?.nodes.at(-1)?.number;
      const from = previous === undefined ? { x: trunkX + TRUNK_W, y: mid } : ends.get(previous);
      if (from)
        edges.push(html`<${Edge} key="e-waiting" x1=${from.x} y1=${from.y} x2=${x} y2=${mid} dashed=${true} />`);
      parts.push(html`<g key="waiting" class="qg-waiting-block" role="group" aria-label=${`Waiting for a test run: ${list(waiting.map((n) => n.number))}`}>
        <text class="qg-lane-label" x=${x} y=${chipsTop - 8} aria-hidden="true">Waiting</text>
        ${waiting.map(
          (n, i) =>
            html`<${PrNode}
              key=${`pr-${n.number}`}
              queueKey=${queueKey}
              node=${n}
              x=${x + Math.floor(i / rows) * (CHIP_W + GAP)}
              y=${chipsTop + (i % rows) * (CHIP_H + 8)}
              w=${CHIP_W}
              h=${CHIP_H}
            />`,
        )}
      </g>`);
      x += Math.ceil(waiting.length / rows) * (CHIP_W + GAP) - GAP + STEP;
    }
    width = Math.max(width, x - STEP);
    const label = parallel ? `Lane of #${lane.lane ?? '?'}` : 'Merge order';
    laneParts.push(html`<g
      key=${`lane-${lane.lane}`}
      class="qg-lane"
      data-lane=${lane.lane ?? undefined}
      role="group"
      aria-label=${`${label}: ${lane.items.length} ${lane.items.length === 1 ? 'group' : 'groups'} of PRs, in merge order`}
    >
      <text class="qg-lane-label" x=${lanesX} y=${top + 14} aria-hidden="true">${label}</text>
      ${edges}
      ${parts}
    </g>`);
  });
  if (pic.lanes.length === 0) width = lanesX + 260;

  const notReadyParts = pic.notReady.map(
    (n, i) =>
      html`<${PrNode}
      key=${`pr-${n.number}`}
      queueKey=${queueKey}
      node=${n}
      x=${lanesX + i * (NODE_W + GAP)}
      y=${notReadyY + LANE_LABEL}
    />`,
  );
  if (pic.notReady.length) width = Math.max(width, lanesX + pic.notReady.length * (NODE_W + GAP));
  width += MARGIN;

  const leavingParts = pic.leaving.map((n, i) => {
    const y = MARGIN + LANE_LABEL + i * (LEAVE_H + 10);
    return html`<g key=${`left-${n.number}`} class=${`qg-leave fade-${i}`}>
      ${
        n.state === 'MERGED'
          ? html`<path class="qg-edge merged" d=${`M${leaveX + LEAVE_W},${y + LEAVE_H / 2} H${trunkX}`} />`
          : null
      }
      <${PrNode}
        queueKey=${queueKey}
        node=${n}
        x=${leaveX}
        y=${y}
        w=${LEAVE_W}
        h=${LEAVE_H}
        cls="qg-left"
      />
    </g>`;
  });

  const summary = describe(pic, activity, branch);
  return html`<div class="queue-graph" ref=${root}>
    <p class="qg-caption muted small" aria-hidden="true">${headline(pic)}</p>
    <div class="qg-scroll" ref=${scroller}>
      <svg
        class="qg"
        width=${width}
        height=${height}
        viewBox=${`0 0 ${width} ${height}`}
        role="group"
        aria-label=${`The queue of ${branch} as a picture`}
        aria-describedby="qg-summary"
      >
        <defs>
          <marker id="qg-arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto">
            <path class="qg-arrowhead" d="M0,0 L10,5 L0,10 z" />
          </marker>
        </defs>
        <g class="qg-target" data-target=${activity.targetSha ?? ''} role="img" aria-label=${`${branch} at ${short(activity.targetSha)}: the target branch's tip`}>
          <rect class="qg-trunk" x=${trunkX} y=${MARGIN} width=${TRUNK_W} height=${trunkH} rx="10" />
          <text class="qg-trunk-name" x=${trunkX + TRUNK_W / 2} y=${MARGIN + 24} text-anchor="middle">${clip(branch, 12)}</text>
          <text class="qg-trunk-sha" x=${trunkX + TRUNK_W / 2} y=${MARGIN + 42} text-anchor="middle">${short(activity.targetSha)}</text>
        </g>
        ${/* The document's order is the Tab order: the lanes, the PRs not ready, the PRs leaving. */ laneParts}
        ${
          pic.lanes.length === 0
            ? html`<text class="qg-empty" x=${lanesX} y=${MARGIN + ROW_H / 2}>Nothing in the queue.</text>`
            : null
        }
        ${
          pic.notReady.length
            ? html`<g class="qg-not-ready" role="group" aria-label="Not ready: submitted, not admitted yet">
              <text class="qg-lane-label" x=${lanesX} y=${notReadyY + 14} aria-hidden="true">Not ready</text>
              ${notReadyParts}
            </g>`
            : null
        }
        ${
          pic.leaving.length
            ? html`<g class="qg-leaving" role="group" aria-label="Recently concluded, leaving the queue">
              <text class="qg-lane-label" x=${leaveX} y=${MARGIN + 14} aria-hidden="true">Leaving</text>
              ${leavingParts}
            </g>`
            : null
        }
      </svg>
    </div>
    <p id="qg-summary" class="visually-hidden">${summary}</p>
  </div>`;
}

/** The picture in a few words, shown above it. */
function headline(/** @type {Picture} */ pic) {
  const parts = [
    `${pic.runs} ${pic.runs === 1 ? 'run' : 'runs'} in flight`,
    pic.waiting ? `${pic.waiting} waiting` : '',
    pic.notReady.length ? `${pic.notReady.length} not ready` : '',
    pic.lanes.length > 1 ? `${pic.lanes.length} lanes` : '',
  ];
  return parts.filter(Boolean).join(' · ');
}

/** The picture in words: the text alternative screen readers get. */
function describe(/** @type {Picture} */ pic, /** @type {QueueActivity} */ activity, /** @type {string} */ branch) {
  const sentences = [`${branch} is at ${short(activity.targetSha)}.`];
  for (const lane of pic.lanes) {
    const what = lane.items.map((item) =>
      item.kind === 'run'
        ? runSentence(item, branch)
        : item.kind === 'passed'
          ? `${list(item.nodes.map((n) => n.number))} passed, merging`
          : `${list(item.nodes.map((n) => n.number))} ${item.nodes[0]?.word}`,
    );
    sentences.push(`${lane.lane === null ? 'In merge order' : `Lane of #${lane.lane}`}: ${what.join('; ')}.`);
  }
  if (pic.lanes.length === 0) sentences.push('Nothing in the queue.');
  if (pic.notReady.length) sentences.push(`Not ready: ${list(pic.notReady.map((n) => n.number))}.`);
  if (pic.leaving.length)
    sentences.push(`Recently concluded: ${pic.leaving.map((n) => `#${n.number} ${n.word}`).join(', ')}.`);
  return sentences.join(' ');
}
