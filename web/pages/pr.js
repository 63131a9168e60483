// @ts-check
// The pull request page: the PR's state and why, links to it on the forge, the actions the API accepts
// for it now, its timeline and its test runs (CI statuses, the built-in runner's log). It follows the
// queue's stream and reloads the PR when the queue changes; its latest try build, when it had one; Preact patches the page in place, so focus,
// scroll and an open log survive.
// Its parts are in ../pr/: facts, actions, timeline, test runs and their logs, the page that cannot be shown.
import { call, failed } from '../api.js';
import { usePageTitle } from '../components.js';
import { announce } from '../dom.js';
import { queueLabel } from '../links.js';
import { LiveIndicator, useLive } from '../live.js';
import { Actions } from '../pr/actions.js';
import { ErrorText } from '../pr/error-text.js';
import { Facts } from '../pr/facts.js';
import { PrProblem } from '../pr/problem.js';
import { RunCard } from '../pr/run-card.js';
import { Timeline } from '../pr/timeline.js';
import { noRunsText, runIdsOf } from '../pr/words.js';
import { html, useCallback, useEffect, useRef, useState } from '../ui.js';
import { StateBadge } from '../words.js';

/** @typedef {import('../../src/client/index.js').SubmittedPullRequest} SubmittedPullRequest */
/** @typedef {import('../../src/client/index.js').TestingDetails} TestingDetails */
/** @typedef {import('../../src/client/index.js').QueueRequest} QueueKey */
/** @typedef {import('../pr/run-card.js').Run} Run */
/** @typedef {import('../../src/client/index.js').TryBuild} TryBuild */
/** @typedef {{ pr: SubmittedPullRequest, runs: Run[], tried: TryBuild | null }} PrData */

/**
 * The PR with its timeline, and the details of each of its test runs, newest first.
 * @param {QueueKey} key
 * @param {number} number
 * @returns {Promise<PrData>}
 */
async function loadPr(key, number) {
  /** @type {SubmittedPullRequest} */
  const pr = await call('getSubmittedPullRequest', { ...key, pr: { number }, includeTimeline: true });
  const ids = runIdsOf(pr.timeline ?? []);
  const runs = await Promise.all(
    ids.map(async (id) => {
      try {
        /** @type {TestingDetails} */
        const details = await call('getMergeQueueTestingDetails', { ...key, testRunId: id });
        return { id, details };
      } catch (error) {
        if (failed(error)) throw error;
        return { id, error };
      }
    }),
  );
  /** @type {{ try: TryBuild | null }} */
  const latest = await call('getPullRequestTry', { ...key, pr: { number } });
  return { pr, runs, tried: latest.try };
}

/**
 * The PR's latest try build: tested with its target by the queue's CI, not queued.
 * @param {{ tried: TryBuild }} props
 */
function TryCard({ tried }) {
  const base = tried.baseSha ? ` on ${tried.baseSha.slice(0, 7)}` : '';
  const ahead =
    tried.prNumbers.length > 1
      ? ` with ${tried.prNumbers
          .slice(0, -1)
          .map((n) => `#${n}`)
          .join(', ')} ahead`
      : '';
  return html`<section aria-labelledby="try-title" class="card" id="try">
    <h2 id="try-title">Try build: ${tried.state}</h2>
    <p>${tried.detail}</p>
    <p class="muted">
      ${tried.headSha.slice(0, 7)} built${base}${ahead}${tried.testSha ? `, tested ${tried.testSha.slice(0, 7)}` : ''};
      asked by ${tried.requestedBy} at ${new Date(tried.createdAt).toLocaleString()}
    </p>
  </section>`;
}

/**
 * @param {{ queueKey: QueueKey, prNumber: number }} props
 */
export function PrPage({ queueKey, prNumber }) {
  const [data, setData] = useState(/** @type {PrData | null} */ (null));
  const [problem, setProblem] = useState(/** @type {unknown} */ (null));
  const current = useRef(data);
  const loading = useRef({ busy: false, again: false });
  const { host, owner, name } = queueKey.repo;
  const branch = queueKey.targetBranch;

  // One load at a time; a change meanwhile loads once more after it.
  const reload = useCallback(async () => {
    const l = loading.current;
    if (l.busy) {
      l.again = true;
      return;
    }
    l.busy = true;
    try {
      do {
        l.again = false;
        try {
          const next = await loadPr({ repo: { host, owner, name }, targetBranch: branch }, prNumber);
          const before = current.current?.pr;
          if (before && before.state !== next.pr.state) announce(`#${prNumber}: ${next.pr.reason.message}`);
          current.current = next;
          setData(next);
          setProblem(null);
        } catch (err) {
          if (failed(err)) return;
          setProblem(err);
        }
      } while (l.again);
    } finally {
      l.busy = false;
    }
  }, [host, owner, name, branch, prNumber]);

  useEffect(() => {
    current.current = null;
    setData(null);
    reload();
  }, [reload]);

  const connection = useLive(queueKey, (activity) => {
    const inQueue = activity.pullRequests.some((p) => p.prNumber === prNumber);
    const pr = current.current?.pr;
    if (!pr) {
      if (inQueue) reload(); // submitted meanwhile
      return;
    }
    // While it is in the queue anything may change it (position, estimate, CI statuses); once it
    // concluded, only a new trip through the queue does.
    const concluded = activity.recentPullRequests.find((p) => p.prNumber === prNumber);
    if (inQueue || (concluded && concluded.stateChangedAt !== pr.stateChangedAt)) reload();
  });

  usePageTitle(
    data
      ? `#${prNumber} ${data.pr.prTitle} in ${queueLabel(queueKey)}`
      : problem
        ? `#${prNumber} in ${queueLabel(queueKey)}`
        : null,
  );
  if (!data) {
    if (problem)
      return html`<${PrProblem} queueKey=${queueKey} prNumber=${prNumber} problem=${problem} reload=${reload} />`;
    return html`<p class="notice" role="status">Loading #${prNumber}…</p>`;
  }
  const { pr, runs, tried } = data;
  return html`
    <article aria-labelledby="pr-title">
      <div class="page-head">
        <h1 id="pr-title">#${pr.prNumber} ${pr.prTitle}</h1>
        <${StateBadge} state=${pr.state} />
        <${LiveIndicator} connection=${connection} />
      </div>
      ${problem ? html`<${ErrorText} error=${problem} prefix="Could not refresh the page: " />` : null}
      <${Facts} queueKey=${queueKey} pr=${pr} />
      <${Actions} queueKey=${queueKey} pr=${pr} reload=${reload} />
      ${tried ? html`<${TryCard} tried=${tried} />` : null}
      <section aria-labelledby="timeline-title" class="card">
        <h2 id="timeline-title">Timeline</h2>
        <p class="muted">Newest first: every state change with its reason.</p>
        <${Timeline} timeline=${pr.timeline ?? []} />
      </section>
      <section aria-labelledby="pr-runs-title">
        <h2 id="pr-runs-title">Test runs</h2>
        ${
          runs.length === 0
            ? html`<p class="card muted" id="no-runs">${noRunsText(pr)}</p>`
            : html`<ol class="run-list">
                ${runs.map(
                  (run) =>
                    html`<${RunCard}
                      key=${run.id}
                      queueKey=${queueKey}
                      prNumber=${prNumber}
                      run=${run}
                      items=${(pr.timeline ?? []).filter((t) => t.testRunId === run.id)}
                    />`,
                )}
              </ol>`
        }
      </section>
    </article>
  `;
}
