// @ts-check
// The queue page's test runs in flight, each as a text chain: base commit, the PRs merged underneath,
// then the PRs under test; grouped by lane in parallel mode. The queue page shows it in one slot
// (RunsSection), which a drawn graph of the runs can take over with the same props.
import { Since } from '../components.js';
import { prHref } from '../links.js';
import { html } from '../ui.js';

/** @typedef {import('../../src/client/index.js').QueueActivity} QueueActivity */
/** @typedef {QueueActivity['testRuns'][number]} Run */
/** @typedef {import('../../src/client/index.js').QueueRequest} QueueKey */

const short = (/** @type {string | null} */ sha) => (sha ? sha.slice(0, 8) : '–');

/** @param {{ queueKey: QueueKey, run: Run }} props */
function RunChain({ queueKey, run }) {
  const id = run.testRunId.slice(0, 8);
  const bisection = run.queueType === 'bisection';
  /** @param {number} n @param {string} cls */
  const chip = (n, cls) =>
    html`<li key=${`${cls}-${n}`} class=${`chip ${cls}`}><a href=${prHref(queueKey, n)}>#${n}</a></li>`;
  return html`<li class="run">
    <div class="run-head">
      <strong>Run ${id}</strong>
      <span class=${`badge ${bisection ? 'state-pending_failure' : 'state-testing'}`}>${bisection ? 'BISECTION' : 'MAIN'}</span>
      <span class="muted"
        >${run.status === 'creating' ? 'building test commit' : 'testing'}, started <${Since} iso=${run.createdAt} /> ago</span
      >
      ${
        run.retries > 0
          ? html`<span class="badge state-pending_failure" title="CI is run again on the same test commit">RETRY ${run.retries}</span>`
          : null
      }
    </div>
    <ol class="chain" aria-label=${`Run ${id} merges, in order`}>
      <li class="chip base">${queueKey.targetBranch} @ ${short(run.baseSha)}</li>
      ${run.dependentPrs.map((n) => chip(n, 'dependent'))} ${run.prNumbers.map((n) => chip(n, 'tested'))}
    </ol>
    <p class="muted small">
      ${
        run.dependentPrs.length
          ? `Tests #${run.prNumbers.join(', #')} on top of #${run.dependentPrs.join(', #')} (predicted to merge first).`
          : `Tests #${run.prNumbers.join(', #')} on ${queueKey.targetBranch}.`
      }
    </p>
  </li>`;
}

/** @param {{ queueKey: QueueKey, activity: QueueActivity }} props */
export function RunsSection({ queueKey, activity }) {
  /** @param {Run[]} runs */
  const list = (runs) =>
    html`<ol class="runs">
      ${runs.map((r) => html`<${RunChain} key=${r.testRunId} queueKey=${queueKey} run=${r} />`)}
    </ol>`;
  let body;
  if (activity.testRuns.length === 0) body = html`<p class="muted">No test runs in flight.</p>`;
  else if (activity.mode !== 'parallel') body = list(activity.testRuns);
  else {
    /** @type {Map<number, Run[]>} */
    const lanes = new Map();
    for (const r of activity.testRuns) {
      const lane = r.lane ?? r.prNumbers[0] ?? 0;
      lanes.set(lane, [...(lanes.get(lane) ?? []), r]);
    }
    body = html`<div class="lanes">
      ${[...lanes].map(
        ([lane, runs]) =>
          html`<section key=${lane} class="lane" aria-label=${`Lane of #${lane}`}><h3>Lane #${lane}</h3>${list(runs)}</section>`,
      )}
    </div>`;
  }
  return html`<section aria-labelledby="runs-title" class="card" id="runs">
    <h2 id="runs-title">Test runs in flight</h2>
    ${body}
  </section>`;
}
