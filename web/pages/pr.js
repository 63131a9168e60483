// @ts-check
// The pull request page: the PR's state and why, links to it on the forge, the actions the API accepts
// for it now, its timeline and its test runs (CI statuses, the built-in runner's log). It follows the
// queue's stream and reloads the PR when the queue changes; Preact patches the page in place, so focus,
// scroll and an open log survive.
/** @typedef {import('../../src/client/index.js').SubmittedPullRequest} SubmittedPullRequest */
/** @typedef {import('../../src/client/index.js').TestingDetails} TestingDetails */
/** @typedef {import('../../src/client/index.js').QueueActivity} QueueActivity */
/** @typedef {import('../../src/client/index.js').QueueRequest} QueueKey */
/** @typedef {NonNullable<SubmittedPullRequest['timeline']>[number]} TimelineItem */
/** @typedef {{ id: string, details: TestingDetails } | { id: string, error: unknown }} Run */
/** @typedef {{ pr: SubmittedPullRequest, runs: Run[] }} PrData */
/** @typedef {import('../actions.js').Outcome} Outcome */
import { confirmThen, errorMessage } from '../actions.js';
import { ApiError, call, failed } from '../api.js';
import { announce, Since, time, Until } from '../dom.js';
import { usePageTitle } from '../components.js';
import { prHref, queueHref, queueLabel } from '../links.js';
import { LiveIndicator, useLive } from '../live.js';
import { html, useCallback, useEffect, useRef, useState } from '../ui.js';
import { ExternalLink, StateBadge, Why, words } from '../words.js';

const short = (/** @type {string | null | undefined} */ sha) => (sha ? sha.slice(0, 8) : '–');
const PRIORITIES = ['urgent', 'high', 'medium', 'low'];

/**
 * The PR with its timeline, and the details of each of its test runs, newest first.
 * @param {QueueKey} key
 * @param {number} number
 * @returns {Promise<PrData>}
 */
async function loadPr(key, number) {
  /** @type {SubmittedPullRequest} */
  const pr = await call('getSubmittedPullRequest', { ...key, pr: { number }, includeTimeline: true });
  const ids = [...new Set((pr.timeline ?? []).map((t) => t.testRunId).filter((id) => id !== null))];
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
  return { pr, runs };
}

/**
 * An error answer in words, its code in the tooltip.
 * @param {{ error: unknown, prefix?: string }} props
 */
function ErrorText({ error, prefix = '' }) {
  return html`<p class="error" title=${error instanceof ApiError ? error.code : undefined}>
    ${prefix}${errorMessage(error)}
  </p>`;
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
      return html`<${Problem} queueKey=${queueKey} prNumber=${prNumber} problem=${problem} reload=${reload} />`;
    return html`<p class="notice" role="status">Loading #${prNumber}…</p>`;
  }
  const { pr, runs } = data;
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

/**
 * Why there is no test run: what the PR waits for, or how it left the queue before one started.
 * @param {SubmittedPullRequest} pr
 */
function noRunsText(pr) {
  if (!pr.isCurrentlySubmittedToQueue) return `No test run: it left the queue before one started. ${pr.reason.message}`;
  // What it waits on, unless that is only "not ready" (the reason says why).
  const waits = pr.waitingOn && pr.waitingOn.code !== 'NOT_READY' ? ` ${pr.waitingOn.message}` : '';
  return `No test run yet. ${pr.reason.message}${waits}`;
}

/**
 * The PR's facts: queue, links on the forge, author, priority, state and why, where it stands.
 * @param {{ queueKey: QueueKey, pr: SubmittedPullRequest }} props
 */
function Facts({ queueKey, pr }) {
  return html`
    <dl class="facts card">
      <dt>Queue</dt>
      <dd><a href=${queueHref(queueKey)}>${queueLabel(queueKey)}</a></dd>
      <dt>Author</dt>
      <dd>${pr.prAuthor}</dd>
      <dt>Head</dt>
      <dd>
        <span class="mono" title=${pr.prSha}>${short(pr.prSha)}</span>
        ${pr.headCommitUrl ? ' · ' : null}
        <${ExternalLink} url=${pr.headCommitUrl} label=${`Head commit ${short(pr.prSha)} on the forge (opens in a new tab)`}
          >commit on the forge</${ExternalLink}
        >
      </dd>
      ${
        pr.prUrl
          ? html`<dt>On the forge</dt>
              <dd>
                <${ExternalLink} url=${pr.prUrl} label=${`Pull request #${pr.prNumber} on the forge (opens in a new tab)`}
                  >pull request #${pr.prNumber}</${ExternalLink}
                >
              </dd>`
          : null
      }
      <dt>Priority</dt>
      <dd>${pr.priorityName} (${pr.priorityValue})</dd>
      <dt>In state since</dt>
      <dd>${time(pr.stateChangedAt)} (<${Since} iso=${pr.stateChangedAt} /> ago)</dd>
      <dt>Why</dt>
      <dd id="pr-reason">
        <${Why} ...${pr.reason} />
        ${pr.reason.url ? ' ' : null}
        <${ExternalLink} url=${pr.reason.url} label="The failed check (opens in a new tab)">failed check</${ExternalLink}>
      </dd>
      ${
        pr.waitingOn
          ? html`
              <dt>Position</dt>
              <dd id="pr-position">${pr.position === null ? 'not admitted yet' : String(pr.position)}</dd>
              <dt>Waiting on</dt>
              <dd id="pr-waiting-on"><${Why} ...${pr.waitingOn} /></dd>
              <dt>Estimated merge</dt>
              <dd id="pr-eta">
                ${pr.estimatedMergeAt ? html`${time(pr.estimatedMergeAt)} (<${Until} iso=${pr.estimatedMergeAt} />)` : 'unknown'}
              </dd>
            `
          : null
      }
    </dl>
  `;
}

/**
 * The actions the API accepts for the PR now (its `actions`), each after a confirmation, with the
 * outcome in words.
 * @param {{ queueKey: QueueKey, pr: SubmittedPullRequest, reload: () => Promise<void> }} props
 */
function Actions({ queueKey, pr, reload }) {
  const [outcome, setOutcome] = useState(/** @type {Outcome | null} */ (null));
  const [priority, setPriority] = useState(pr.priorityName);
  // A new priority from elsewhere (the API, another tab) shows in the choice.
  useEffect(() => setPriority(pr.priorityName), [pr.priorityName]);
  const n = pr.prNumber;
  const address = { ...queueKey, pr: { number: n } };
  /**
   * @param {{ title: string, text: string, action: string }} dialog
   * @param {() => Promise<unknown>} action
   * @param {string} doneText
   */
  const act = async (dialog, action, doneText) => {
    const result = await confirmThen(dialog, action, doneText);
    if (!result) return;
    setOutcome(result);
    await reload();
  };
  const { actions } = pr;
  const any = actions.cancel || actions.restartTests || actions.changePriority || actions.submitAgain;
  return html`
    ${
      any
        ? html`<div class="controls" role="group" aria-label="Pull request actions">
            ${
              actions.restartTests
                ? html`<button
                    type="button"
                    data-focus-key="restart"
                    onClick=${() =>
                      act(
                        {
                          title: `Restart the tests of #${n}?`,
                          text: `Its test run stops and #${n} is tested again (with the PRs tested together with it).`,
                          action: 'Restart tests',
                        },
                        () => call('restartTestsOnPullRequest', address),
                        `The tests of #${n} were restarted.`,
                      )}
                  >
                    Restart tests
                  </button>`
                : null
            }
            ${
              actions.submitAgain
                ? html`<button
                    type="button"
                    data-focus-key="submit"
                    onClick=${() =>
                      act(
                        {
                          title: `Submit #${n} again?`,
                          text: `#${n} goes back into the queue as it is now on the forge, and is tested again once it is ready.`,
                          action: 'Submit again',
                        },
                        () => call('submitPullRequest', address),
                        `#${n} was submitted again.`,
                      )}
                  >
                    Submit again
                  </button>`
                : null
            }
            ${
              actions.changePriority
                ? html`<span class="priority-control">
                    <label for="priority">Priority</label>
                    <select id="priority" value=${priority} onChange=${(/** @type {Event & { currentTarget: HTMLSelectElement }} */ e) => setPriority(e.currentTarget.value)}>
                      ${[...new Set([...PRIORITIES, pr.priorityName])].map(
                        (p) => html`<option value=${p}>${p}</option>`,
                      )}
                    </select>
                    <button
                      type="button"
                      class="quiet"
                      data-focus-key="priority"
                      disabled=${priority === pr.priorityName}
                      onClick=${() =>
                        act(
                          {
                            title: `Change the priority of #${n} to ${priority}?`,
                            text:
                              priority === 'urgent'
                                ? `An urgent PR goes ahead of the others and may interrupt the test runs in flight.`
                                : `#${n} takes its place in the queue by its new priority.`,
                            action: 'Change priority',
                          },
                          () => call('submitPullRequest', { ...address, priority }),
                          `The priority of #${n} is now ${priority}.`,
                        )}
                    >
                      Change priority
                    </button>
                  </span>`
                : null
            }
            ${
              actions.cancel
                ? html`<button
                    type="button"
                    class="danger"
                    data-focus-key="cancel"
                    onClick=${() =>
                      act(
                        {
                          title: `Cancel #${n}?`,
                          text: `#${n} leaves the queue; its test runs stop. It can be submitted again later.`,
                          action: 'Cancel PR',
                        },
                        () => call('cancelPullRequest', address),
                        `#${n} was cancelled: it left the queue.`,
                      )}
                  >
                    Cancel PR
                  </button>`
                : null
            }
          </div>`
        : html`<p class="muted" id="no-actions">
            #${n} is ${words(pr.state).toLowerCase()}: there is nothing to cancel, restart or submit again.
          </p>`
    }
    ${
      outcome
        ? html`<p class=${outcome.ok ? 'notice' : 'error'} id="pr-outcome" title=${outcome.code}>${outcome.text}</p>`
        : null
    }
  `;
}

/** @param {{ timeline: TimelineItem[] }} props */
function Timeline({ timeline }) {
  if (timeline.length === 0) return html`<p class="muted">No state change recorded yet.</p>`;
  return html`
    <ol class="timeline" id="timeline">
      ${timeline.map(
        (t) => html`
          <li key=${`${t.at} ${t.toState} ${t.reason}`}>
            <time datetime=${t.at}>${time(t.at)}</time>
            <div>
              ${t.fromState ? html`<${StateBadge} state=${t.fromState} />` : html`<span class="muted">new</span>`}
              ${' → '}<${StateBadge} state=${t.toState} />
            </div>
            <div>
              <${Why} code=${t.reason} message=${t.message} />
              ${t.testRunId ? html`<span class="muted"> run ${short(t.testRunId)}</span>` : null}
            </div>
            ${t.detail ? html`<p class="detail">${t.detail}</p>` : null}
          </li>
        `,
      )}
    </ol>
  `;
}

/**
 * What a run that never reached CI says instead of statuses and a log: its test commit was not built,
 * and why (the timeline item of the run that ended it, e.g. a merge conflict with the files).
 * @param {{ items: TimelineItem[] }} props
 */
function NoCiRan({ items }) {
  const ended = items.find((t) => t.detail || t.reason.startsWith('START_TEST_RUN_')) ?? items[0];
  return html`
    <div class="no-ci">
      <p><strong>No CI ran: </strong>the test commit of this run was never built, so there is no log.</p>
      ${ended ? html`<p class="detail"><${Why} code=${ended.reason} message=${ended.message} detail=${ended.detail} /></p>` : null}
    </div>
  `;
}

/**
 * Links to the dashboard pages of PRs; the page's own PR is named, not linked.
 * @param {{ queueKey: QueueKey, numbers: number[], self: number }} props
 */
function PrLinks({ queueKey, numbers, self }) {
  if (numbers.length === 0) return 'none';
  return numbers.map(
    (n, i) =>
      html`${i > 0 ? ', ' : ''}${n === self ? html`<span aria-current="page">#${n}</span>` : html`<a href=${prHref(queueKey, n)}>#${n}</a>`}`,
  );
}

/**
 * One test run: the PRs it tested and merged underneath, its test commit, the required statuses, the
 * CI statuses with their links, and the built-in runner's log.
 * @param {{ queueKey: QueueKey, prNumber: number, run: Run, items: TimelineItem[] }} props
 */
function RunCard({ queueKey, prNumber, run, items }) {
  const label = `Run ${short(run.id)}`;
  if (!('details' in run))
    return html`<li class="card run-card">
      <h3>${label}</h3>
      <${ErrorText} error=${run.error} />
    </li>`;
  const d = run.details;
  const noCi = d.testBranchSha === null && d.status !== 'in_progress';
  return html`
    <li class="card run-card" data-run=${run.id}>
      <h3>${label} <${StateBadge} state=${d.status} /></h3>
      <dl class="facts">
        <dt>Tested PRs</dt>
        <dd><${PrLinks} queueKey=${queueKey} numbers=${d.testedPullRequests.map((p) => p.prNumber)} self=${prNumber} /></dd>
        <dt>Merged underneath</dt>
        <dd><${PrLinks} queueKey=${queueKey} numbers=${d.dependentPrs} self=${prNumber} /></dd>
        <dt>Test branch</dt>
        <dd class="mono">${d.testBranch}</dd>
        <dt>Test commit</dt>
        <dd>
          <span class="mono" title=${d.testBranchSha ?? 'not built'}>${d.testBranchSha ? short(d.testBranchSha) : 'not built'}</span>
          ${d.testCommitUrl ? ' · ' : null}
          <${ExternalLink} url=${d.testCommitUrl} label=${`Test commit ${short(d.testBranchSha)} on the forge (opens in a new tab)`}
            >commit on the forge</${ExternalLink}
          >
        </dd>
        <dt>Started</dt>
        <dd>${time(d.createdAt)}</dd>
        <dt>Required</dt>
        <dd>${d.requiredStatuses.join(', ') || 'none'}</dd>
      </dl>
      ${
        noCi
          ? html`<${NoCiRan} items=${items} />`
          : html`
              <h4>CI statuses</h4>
              ${
                d.statusChecks.length === 0
                  ? html`<p class="muted">No status reported yet: CI reports one when it starts the test commit.</p>`
                  : html`<ul class="checks">
                      ${d.statusChecks.map(
                        (c) => html`
                          <li key=${c.context}>
                            <${StateBadge} state=${c.state} />
                            ${' '}<code>${c.context}</code>
                            ${c.description ? html`<span class="muted"> ${c.description}</span>` : null}
                            ${c.url ? ' ' : null}
                            <${ExternalLink} url=${c.url} label=${`Details of ${c.context} (opens in a new tab)`}>details</${ExternalLink}>
                          </li>
                        `,
                      )}
                    </ul>`
              }
              <${LogViewer} queueKey=${queueKey} testRunId=${run.id} status=${d.status} />
            `
      }
    </li>
  `;
}

/**
 * The built-in CI runner's output of a run, loaded on demand and again when the run's status changes.
 * @param {{ queueKey: QueueKey, testRunId: string, status: string }} props
 */
function LogViewer({ queueKey, testRunId, status }) {
  const [open, setOpen] = useState(false);
  const [log, setLog] = useState(/** @type {{ text: string } | { error: unknown } | null} */ (null));
  const { host, owner, name } = queueKey.repo;
  useEffect(() => {
    if (!open) return;
    let gone = false;
    call('getTestRunLog', { repo: { host, owner, name }, targetBranch: queueKey.targetBranch, testRunId }).then(
      (/** @type {string} */ text) => {
        if (!gone) setLog({ text });
      },
      (error) => {
        if (!gone && !failed(error)) setLog({ error });
      },
    );
    return () => {
      gone = true;
    };
  }, [open, status, host, owner, name, queueKey.targetBranch, testRunId]);
  const boxId = `log-${testRunId}`;
  return html`
    <button
      type="button"
      class="quiet"
      aria-expanded=${open ? 'true' : 'false'}
      aria-controls=${boxId}
      onClick=${() => {
        setOpen(!open);
        if (open) setLog(null);
      }}
    >
      ${open ? 'Hide log' : 'Show log'}
    </button>
    <div class="log-box" id=${boxId}>
      ${
        !open
          ? null
          : log === null
            ? html`<p class="muted">Loading the log…</p>`
            : 'text' in log
              ? html`<pre class="log" tabindex="0" aria-label=${`Log of run ${short(testRunId)}`}>${log.text || '(empty log)'}</pre>`
              : log.error instanceof ApiError && log.error.code === 'LOG_NOT_FOUND'
                ? html`<p class="muted" title=${log.error.code}>${log.error.message}.</p>`
                : html`<${ErrorText} error=${log.error} />`
      }
    </div>
  `;
}

/**
 * The PR could not be shown: never submitted to this queue (and how to submit it), or another error.
 * @param {{ queueKey: QueueKey, prNumber: number, problem: unknown, reload: () => Promise<void> }} props
 */
function Problem({ queueKey, prNumber, problem, reload }) {
  const [outcome, setOutcome] = useState(/** @type {Outcome | null} */ (null));
  const notSubmitted = problem instanceof ApiError && problem.code === 'PR_NOT_SUBMITTED';
  const repo = `${queueKey.repo.host}/${queueKey.repo.owner}/${queueKey.repo.name}`;
  if (!notSubmitted)
    return html`<article aria-labelledby="pr-title" class="card">
      <h1 id="pr-title">#${prNumber} cannot be shown</h1>
      <${ErrorText} error=${problem} />
      <p><a href=${queueHref(queueKey)}>Back to ${queueLabel(queueKey)}</a> · <a href="#/">All queues</a></p>
    </article>`;
  const submit = async () => {
    const result = await confirmThen(
      {
        title: `Submit #${prNumber} to ${queueLabel(queueKey)}?`,
        text: `#${prNumber} enters the queue and is tested once it is ready.`,
        action: 'Submit',
      },
      () => call('submitPullRequest', { ...queueKey, pr: { number: prNumber } }),
      `#${prNumber} was submitted.`,
    );
    if (!result) return;
    setOutcome(result);
    if (result.ok) await reload();
  };
  return html`<article aria-labelledby="pr-title" class="card" id="pr-not-found">
    <h1 id="pr-title">#${prNumber} is not in this queue</h1>
    <p>Pull request #${prNumber} has never been submitted to <a href=${queueHref(queueKey)}>${queueLabel(queueKey)}</a>.</p>
    <p>
      To queue it, submit it here, with <code>greenline pr submit ${prNumber} --repo ${repo} --branch ${queueKey.targetBranch}</code>,
      or with POST /v1/submitPullRequest. This page shows it as soon as it is submitted.
    </p>
    <div class="controls">
      <button type="button" onClick=${submit}>Submit #${prNumber}</button>
    </div>
    ${outcome ? html`<p class=${outcome.ok ? 'notice' : 'error'} title=${outcome.code}>${outcome.text}</p>` : null}
  </article>`;
}
