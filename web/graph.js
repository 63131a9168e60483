// @ts-check
// The queue as a live picture: the target branch's tip on the left, each lane's test runs in flight
// to its right in merge order (a run's PRs in one box: a batch is a box of several; bisection runs are
// marked), the PRs waiting behind them, the PRs not ready yet underneath, and under them the latest
// concluded PRs leaving. Every PR is a link to its page; a text alternative says the same in words.
// What is shown is graph/picture.js, where graph/layout.js, in words graph/words.js: this module draws.
import { layout } from './graph/layout.js';
import { picture } from './graph/picture.js';
import { clip, describe, headline, list, runLabel, runSentence } from './graph/words.js';
import { short } from './links.js';
import { prHref } from './links.js';
import { html, useLayoutEffect, useMemo, useRef } from './ui.js';

/** @typedef {import('../src/client/index.js').QueueActivity} QueueActivity */
/** How small a wide screen may draw a picture wider than its box (graph.css), rather than scroll it. */
const SMALLEST = 0.75;
/** @typedef {{ repo: import('../src/client/index.js').RepoRef, targetBranch: string }} QueueKey */
/** @typedef {import('./graph/picture.js').Run} Run */
/** @typedef {import('./graph/layout.js').PlacedItem} PlacedItem */
/** @typedef {import('./graph/layout.js').PlacedPr} PlacedPr */

const TITLE_CHARS = 20;
/** Marks of concluded PRs, beside the word (the word carries the meaning). */
const MARKS = /** @type {Record<string, string>} */ ({ MERGED: '✓ ', FAILED: '✗ ', CANCELLED: '– ' });

/**
 * One PR: a link to its page, with its number, state and title (its word left out on a chip, its title
 * on a small node). Its <title> is its accessible name and tooltip ("#12 Add gift cards, testing"), its
 * <desc> says why it is there.
 * @param {{ queueKey: QueueKey, placed: PlacedPr, cls?: string }} props
 */
function PrNode({ queueKey, placed, cls = '' }) {
  const { node, x, y, w, h, size } = placed;
  const name = `#${node.number} ${node.title}, ${node.word}`;
  const compact = size !== 'node';
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
    ${size === 'chip' ? null : html`<text class="qg-word" x=${x + w - 10} y=${y + (compact ? 20 : 19)} text-anchor="end">${mark}${node.word}</text>`}
    ${compact ? null : html`<text class="qg-title" x=${x + 10} y=${y + 37}>${clip(node.title, TITLE_CHARS)}</text>`}
  </a>`;
}

/**
 * One item of a lane: a run's box (its kind, state, id and retries above its PRs), the box of PRs whose
 * tests passed, or a PR waiting alone.
 * @param {{ queueKey: QueueKey, placed: PlacedItem, branch: string }} props
 */
function LaneItem({ queueKey, placed, branch }) {
  const { item, x, y, w, h, label } = placed;
  const prs = placed.prs.map((p) => html`<${PrNode} key=${`pr-${p.node.number}`} queueKey=${queueKey} placed=${p} />`);
  const box = html`<rect class="qg-box" x=${x} y=${y} width=${w} height=${h} rx="10" />`;
  if (item.kind === 'run') {
    const run = /** @type {Run} */ (item.run);
    const { kind, state, retries } = runLabel(item);
    const sentence = runSentence(item, branch);
    return html`<g
      class=${`qg-run ${run.queueType === 'bisection' ? 'bisection' : 'main'}${run.status === 'creating' ? ' creating' : ''}${item.nodes.length > 1 ? ' batch' : ''}`}
      data-run=${run.testRunId}
      data-queue-type=${run.queueType}
      role="group"
      aria-label=${sentence}
    >
      <title>${sentence}</title>
      ${box}
      <text class="qg-run-kind" x=${label.x} y=${label.y} aria-hidden="true">${kind} · ${state}</text>
      <text class="qg-run-id" x=${label.x} y=${label.y + 13} aria-hidden="true">
        ${short(run.testRunId)}${retries > 0 ? ` · retry ${retries}` : ''}
      </text>
      ${prs}
    </g>`;
  }
  if (item.kind === 'passed')
    return html`<g class="qg-passed" role="group" aria-label=${`Tests passed: ${list(item.nodes.map((n) => n.number))}, merging`}>
      ${box}
      <text class="qg-run-kind" x=${label.x} y=${label.y} aria-hidden="true">Passed · merging</text>
      ${prs}
    </g>`;
  return html`<g class="qg-waiting">${prs}</g>`;
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
  const at = useMemo(() => layout(pic), [pic]);
  // The PR focused before this drawing: after it, its (maybe new) element gets the focus back.
  const active = document.activeElement;
  const focusedPr = root.current?.contains(active) ? active?.getAttribute('data-pr') : null;
  useLayoutEffect(() => {
    if (!focusedPr || !root.current || root.current.contains(document.activeElement)) return;
    const again = root.current.querySelector(`[data-pr="${focusedPr}"]`);
    if (again instanceof SVGElement) again.focus({ preventScroll: true });
  });

  const branch = queueKey.targetBranch;
  const label = (/** @type {number | null} */ lane) =>
    activity.mode === 'parallel' ? `Lane of #${lane ?? '?'}` : 'Merge order';
  const { width, height, trunk } = at;
  return html`<div class="queue-graph" ref=${root}>
    <p class="qg-caption muted small" aria-hidden="true">${headline(pic)}</p>
    <div class="qg-scroll">
      <svg
        class="qg"
        width=${width}
        height=${height}
        style=${{ '--qg-smallest': `${Math.round(width * SMALLEST)}px` }}
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
          <rect class="qg-trunk" x=${trunk.x} y=${trunk.y} width=${trunk.w} height=${trunk.h} rx="10" />
          <text class="qg-trunk-name" x=${trunk.x + trunk.w / 2} y=${trunk.y + 24} text-anchor="middle">${clip(branch, 12)}</text>
          <text class="qg-trunk-sha" x=${trunk.x + trunk.w / 2} y=${trunk.y + 42} text-anchor="middle">${short(activity.targetSha)}</text>
        </g>
        ${
          /* The document's order is the Tab order: the lanes, the PRs not ready, the PRs leaving. */ at.lanes.map(
            (l) => html`<g
            key=${`lane-${l.lane.lane}`}
            class="qg-lane"
            data-lane=${l.lane.lane ?? undefined}
            role="group"
            aria-label=${`${label(l.lane.lane)}: ${l.lane.items.length} ${l.lane.items.length === 1 ? 'group' : 'groups'} of PRs, in merge order`}
          >
            <text class="qg-lane-label" x=${l.label.x} y=${l.label.y} aria-hidden="true">${label(l.lane.lane)}</text>
            ${l.arrows.map(
              (a) =>
                html`<path key=${a.key} class=${`qg-edge${a.dashed ? ' dashed' : ''}`} d=${a.d} marker-end="url(#qg-arrow)" />`,
            )}
            ${l.items.map((p) => html`<${LaneItem} key=${p.item.key} queueKey=${queueKey} placed=${p} branch=${branch} />`)}
            ${
              l.waiting &&
              html`<g key="waiting" class="qg-waiting-block" role="group" aria-label=${`Waiting for a test run: ${list(l.waiting.prs.map((p) => p.node.number))}`}>
                <text class="qg-lane-label" x=${l.waiting.label.x} y=${l.waiting.label.y} aria-hidden="true">Waiting</text>
                ${l.waiting.prs.map((p) => html`<${PrNode} key=${`pr-${p.node.number}`} queueKey=${queueKey} placed=${p} />`)}
              </g>`
            }
          </g>`,
          )
        }
        ${at.empty ? html`<text class="qg-empty" x=${at.empty.x} y=${at.empty.y}>Nothing in the queue.</text>` : null}
        ${
          at.notReady
            ? html`<g class="qg-not-ready" role="group" aria-label="Not ready: submitted, not admitted yet">
              <text class="qg-lane-label" x=${at.notReady.label.x} y=${at.notReady.label.y} aria-hidden="true">Not ready</text>
              ${at.notReady.prs.map((p) => html`<${PrNode} key=${`pr-${p.node.number}`} queueKey=${queueKey} placed=${p} />`)}
            </g>`
            : null
        }
        ${
          at.leaving
            ? html`<g class="qg-leaving" role="group" aria-label="Recently concluded, leaving the queue">
              <text class="qg-lane-label" x=${at.leaving.label.x} y=${at.leaving.label.y} aria-hidden="true">Leaving</text>
              ${at.leaving.prs.map(
                (p, i) => html`<g key=${`left-${p.node.number}`} class=${`qg-leave fade-${i}`}>
                  ${p.line ? html`<path class="qg-edge merged" d=${p.line} />` : null}
                  <${PrNode} queueKey=${queueKey} placed=${p} cls="qg-left" />
                </g>`,
              )}
            </g>`
            : null
        }
      </svg>
    </div>
    <p id="qg-summary" class="visually-hidden">${describe(pic, branch, activity.targetSha)}</p>
  </div>`;
}
