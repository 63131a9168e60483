// @ts-check
// The queue graph in words: a run's label and sentence (its accessible name and tooltip), the headline
// above the picture and the text alternative screen readers get instead of it.

import { short } from '../links.js';

/** @typedef {import('./picture.js').Item} Item */
/** @typedef {import('./picture.js').Picture} Picture */
/** @typedef {import('./picture.js').Run} Run */

/** "#4, #5, #6" */
export const list = (/** @type {number[]} */ ns) => ns.map((n) => `#${n}`).join(', ');
/** `s` cut to `n` characters, "…" ending what was cut. */
export const clip = (/** @type {string} */ s, /** @type {number} */ n) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/**
 * How an item's run is described: its kind ("Run", "Batch of 3", "Bisection of 2"), its state
 * ("testing", or "building" while its test commit is built), its retries.
 * @param {Item} item
 */
export function runLabel(item) {
  const run = /** @type {Run} */ (item.run);
  const n = item.nodes.length;
  const kind = run.queueType === 'bisection' ? `Bisection${n > 1 ? ` of ${n}` : ''}` : n > 1 ? `Batch of ${n}` : 'Run';
  const state = run.status === 'creating' ? 'building' : 'testing';
  return { kind, state, retries: run.retries };
}

/**
 * The sentence of a run, for its accessible label and its tooltip: e.g. "Batch of 3, run 1a2b3c4d:
 * testing #4, #5, #6 on top of #3 (built on #1, merged since); retry 1".
 * @param {Item} item
 * @param {string} branch the target branch
 */
export function runSentence(item, branch) {
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

/** The picture in a few words, shown above it: "2 runs in flight · 3 waiting · 1 not ready · 2 lanes". */
export function headline(/** @type {Picture} */ pic) {
  const parts = [
    `${pic.runs} ${pic.runs === 1 ? 'run' : 'runs'} in flight`,
    pic.waiting ? `${pic.waiting} waiting` : '',
    pic.notReady.length ? `${pic.notReady.length} not ready` : '',
    pic.lanes.length > 1 ? `${pic.lanes.length} lanes` : '',
  ];
  return parts.filter(Boolean).join(' · ');
}

/**
 * The picture in words: the text alternative screen readers get.
 * @param {Picture} pic
 * @param {string} branch the target branch
 * @param {string | null} targetSha its tip
 */
export function describe(pic, branch, targetSha) {
  const sentences = [`${branch} is at ${short(targetSha)}.`];
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
