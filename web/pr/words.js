// @ts-check
// The pull request page's words and choices, without Preact or the DOM: why a PR has no
// test run, which test runs its timeline names, why a run never reached CI, the priorities to choose from,
// the layers of its stack.

/** @typedef {import('../../src/client/index.js').SubmittedPullRequest} SubmittedPullRequest */
/** @typedef {NonNullable<SubmittedPullRequest['timeline']>[number]} TimelineItem */

const PRIORITIES = ['urgent', 'high', 'medium', 'low'];

/** The priorities a PR can be given: the named ones, and its own when it has another. @param {string} current */
export const priorityChoices = (current) => [...new Set([...PRIORITIES, current])];

/** The test runs the timeline names, each once, newest first as the timeline is. @param {TimelineItem[]} timeline */
export const runIdsOf = (timeline) => [...new Set(timeline.map((t) => t.testRunId).filter((id) => id !== null))];

/**
 * The layers of the PR's stack, bottom first, each with whether it is this PR; empty when it is in none.
 * @param {Pick<SubmittedPullRequest, 'stack' | 'prNumber'>} pr
 */
export const stackLayers = (pr) => pr.stack.map((n) => ({ number: n, self: n === pr.prNumber }));

/**
 * Why there is no test run: what the PR waits for, or how it left the queue before one started.
 * @param {SubmittedPullRequest} pr
 */
export function noRunsText(pr) {
  if (!pr.isCurrentlySubmittedToQueue) return `No test run: it left the queue before one started. ${pr.reason.message}`;
  // What it waits on, unless that is only "not ready" (the reason says why).
  const waits = pr.waitingOn && pr.waitingOn.code !== 'NOT_READY' ? ` ${pr.waitingOn.message}` : '';
  return `No test run yet. ${pr.reason.message}${waits}`;
}

/**
 * The timeline item that says why a run never reached CI (e.g. a merge conflict with the files): the
 * first with a detail or a failed start, else the run's first item.
 * @param {TimelineItem[]} items the run's items of the timeline
 */
export const whyNoCi = (items) => items.find((t) => t.detail || t.reason.startsWith('START_TEST_RUN_')) ?? items[0];
