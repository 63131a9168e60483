// @ts-check
// The queue page (#/queue/<host>/<owner>/<name>/<branch>): the queue's state and controls, the test
// runs in flight, the PRs in queue order with where each stands and why, the latest conclusions and
// the charts of the last 24 hours. It follows the queue's event stream; Preact patches the page in
// place on each change, so focus and scroll stay where the user left them.
import { call, failed } from '../api.js';
import { HistoryCharts } from '../charts.js';
import { QueueGraph } from '../graph.js';
import { ApiProblem, Badge, ExternalLink, Reason, Since, Until, usePageTitle } from '../components.js';
import { confirmThen } from '../actions.js';
import { follow } from '../live.js';
import { historyHref, prHref, queueLabel, settingsHref, short } from '../links.js';
import { useScopes } from '../permissions.js';
import { html, useEffect, useState } from '../ui.js';
import { CONTROLS, FreezeBanner, ManagementBanner, outsideTerraform } from '../queue-state.js';

/** @typedef {import('../../src/client/index.js').QueueActivity} QueueActivity */
/** @typedef {import('../../src/client/index.js').QueueHistory} QueueHistory */
/** @typedef {import('../../src/client/index.js').QueueRequest} QueueKey */
/** @typedef {QueueActivity['pullRequests'][number]} ActivityPr */
/** @typedef {QueueActivity['recentPullRequests'][number]} RecentPr */
/** @typedef {import('../live.js').Connection} Connection */

const upper = (/** @type {string} */ state) => String(state).toUpperCase();
const slug = (/** @type {QueueKey} */ key) => `${key.repo.host}/${key.repo.owner}/${key.repo.name}`;
/** How often the charts are read again while nothing concludes. */
const CHARTS_EVERY_MS = 30_000;

/** State, mode, target commit, and the CI settings in force. @param {{ activity: QueueActivity }} props */
function QueueHead({ activity: a }) {
  const timeout = `testing timeout ${a.testingTimeoutMinutesInForce} min${a.testingTimeoutMinutes === 'auto' ? ' (auto, from recent runs)' : ''}`;
  const retries = a.ciRetries > 0 ? ` · failed runs retried up to ${a.ciRetries}×` : '';
  return html`<div class="queue-state">
    <${Badge} state=${a.state} />
    <span> ${a.mode} mode, ${a.concurrency} at once${a.batch ? ', batching' : ''}; target ${a.targetSha === null ? 'not read yet' : `at ${short(a.targetSha)}`}</span>
    <span class="muted" id="ci-settings">${` · ${timeout}${retries}`}</span>
    ${a.targetUnread ? html`<p class="why" id="target-unread" role="status">${a.targetUnread}</p>` : null}
  </div>`;
}

/**
 * The required statuses quarantined now (they do not gate merges), each with how and why; nothing
 * when none is. @param {{ activity: QueueActivity }} props
 */
function QuarantineNote({ activity: a }) {
  const list = a.statusQuarantine ?? [];
  if (list.length === 0) return null;
  return html`<div class="notice" id="quarantine" role="status">
    <p>Quarantined checks (their failures do not block merges; they are still reported):</p>
    <ul>
      ${list.map(
        (s) =>
          html`<li key=${s.status} data-status=${s.status}>
            <strong>${s.status}</strong>${` — ${s.quarantinedBy === 'automatic' ? 'automatically' : 'by the queue setting'}: ${s.quarantineReason ?? ''}`}
          </li>`,
      )}
    </ul>
  </div>`;
}

/**
 * Pause, Resume and Drain, each after a confirmation; the button of the state the queue is in is
 * disabled, and all three while the queue switches modes. The outcome is said in `status` and to screen readers.
 * @param {{ queueKey: QueueKey, activity: QueueActivity, title: string }} props
 */
function Controls({ queueKey, activity, title }) {
  const [status, setStatus] = useState(/** @type {import('../actions.js').Outcome | null} */ (null));
  /** @param {(typeof CONTROLS)[number]} c */
  const run = async (c) => {
    const outcome = await confirmThen(
      { title: `${c.label} ${title}?`, text: c.text + outsideTerraform(activity), action: c.label },
      () => call('updateQueue', { ...queueKey, state: c.state }),
    );
    if (outcome) setStatus(outcome);
  };
  const state = upper(activity.state);
  // While the queue switches modes, updateQueue refuses every state.
  const switching = state === 'SWITCHING_MODES';
  return html`<div class="controls" role="group" aria-label="Queue state">
      ${CONTROLS.map(
        (c) =>
          html`<button
            key=${c.state}
            type="button"
            data-focus-key=${`control-${c.state}`}
            disabled=${switching || state === c.state}
            onClick=${() => run(c)}
          >
            ${c.label}
          </button>`,
      )}
    </div>
    ${
      switching
        ? html`<p class="muted" id="controls-note">
          The queue is switching modes: its state can be set once the switch completed.
        </p>`
        : null
    }
    ${status ? html`<p role="status" class=${status.ok ? 'notice' : 'error'} title=${status.code}>${status.text}</p>` : null}`;
}

/**
 * Where a PR and its head commit are on the forge, when their addresses are known; the head commit as
 * text otherwise.
 * @param {{ pr: { prNumber: number, prUrl: string | null, headCommitUrl: string | null }, sha?: string }} props
 */
function ForgeLinks({ pr, sha }) {
  const n = pr.prNumber;
  return html`${
    pr.prUrl
      ? html` · <${ExternalLink} url=${pr.prUrl} class="forge-pr"
          >on the forge<span class="visually-hidden"> (#${n}, opens in a new tab)</span><//
        >`
      : null
  }${
    sha
      ? html` · head${' '}${
          pr.headCommitUrl
            ? html`<${ExternalLink} url=${pr.headCommitUrl} class="mono forge-commit"
                >${short(sha)}<span class="visually-hidden"> (head commit of #${n} on the forge, opens in a new tab)</span><//
              >`
            : html`<span class="mono forge-commit">${short(sha)}</span>`
        }`
      : null
  }`;
}

/** One PR of the queue. @param {{ queueKey: QueueKey, pr: ActivityPr, parallel: boolean }} props */
function PrRow({ queueKey, pr, parallel }) {
  return html`<tr data-pr=${pr.prNumber} data-state=${upper(pr.state)}>
    <td data-label=${parallel ? 'Position in lane' : 'Position'} class="num">
      ${pr.position === null ? '–' : String(pr.position)}
    </td>
    <th scope="row" data-label="Pull request">
      <a href=${prHref(queueKey, pr.prNumber)} class="pr-page">#${pr.prNumber} ${pr.prTitle}</a>
      <span class="muted block">by ${pr.prAuthor}<${ForgeLinks} pr=${pr} sha=${pr.prSha} /></span>
    </th>
    <td data-label="State">
      <${Badge} state=${pr.state} />
      <${Reason} reason=${pr.explanation} class="why muted block small" />
      ${pr.waitingOn ? html`<${Reason} reason=${pr.waitingOn} class="waiting-on block small" />` : null}
    </td>
    <td data-label="Priority">${pr.priorityName} (${pr.priorityValue})</td>
    <td data-label="Time in queue"><${Since} iso=${pr.admittedAt ?? pr.submittedAt} /></td>
    <td data-label="Estimated merge" class="eta">
      ${pr.estimatedMergeAt ? html`<${Until} iso=${pr.estimatedMergeAt} />` : html`<span class="muted">unknown</span>`}
    </td>
    ${parallel ? html`<td data-label="Lane">${pr.lane === null ? '–' : `#${pr.lane}`}</td>` : null}
    <td data-label="Test run" class="mono">${pr.testRunId ? pr.testRunId.slice(0, 8) : '–'}</td>
  </tr>`;
}

/** The PRs in queue order, or what to do when there are none. @param {{ queueKey: QueueKey, activity: QueueActivity }} props */
function PrTable({ queueKey, activity }) {
  if (activity.pullRequests.length === 0) {
    return html`<div class="empty" id="queue-empty">
      <p>The queue is empty: no pull request is waiting, testing or about to merge.</p>
      <p class="muted">
        Submit one with the command line,${' '}<code>greenline pr submit NUMBER --repo ${slug(queueKey)} --branch ${queueKey.targetBranch}</code>, or through the
        API, <code>POST /v1/submitPullRequest</code>; with label commands on, adding the queue's label to the PR
        submits it too.
      </p>
    </div>`;
  }
  const parallel = activity.mode === 'parallel';
  const cols = [
    'Position',
    'Pull request',
    'State',
    'Priority',
    'Time in queue',
    'Estimated merge',
    ...(parallel ? ['Lane'] : []),
    'Test run',
  ];
  return html`<div class="table-wrap">
    <table class="responsive" id="queue-prs">
      <caption class="visually-hidden">Pull requests in queue order</caption>
      <thead>
        <tr>
          ${cols.map((c) => html`<th key=${c} scope="col">${c}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${activity.pullRequests.map(
          (pr) => html`<${PrRow} key=${pr.prNumber} queueKey=${queueKey} pr=${pr} parallel=${parallel} />`,
        )}
      </tbody>
    </table>
  </div>`;
}

/** The latest concluded PRs, each with its reason in words. @param {{ queueKey: QueueKey, activity: QueueActivity }} props */
function RecentList({ queueKey, activity }) {
  if (activity.recentPullRequests.length === 0) {
    return html`<p class="muted">Nothing has concluded yet: PRs are listed here once they merge, fail or are cancelled.</p>`;
  }
  return html`<ul class="recent" id="recent-prs">
    ${activity.recentPullRequests.map(
      (
        pr,
      ) => html`<li key=${`${pr.prNumber}-${pr.stateChangedAt}`} data-pr=${pr.prNumber} data-state=${upper(pr.state)}>
        <${Badge} state=${pr.state} />${' '}<a href=${prHref(queueKey, pr.prNumber)} class="pr-page"
          >#${pr.prNumber} ${pr.prTitle}</a
        >
        ${
          pr.flaky
            ? html` <span class="badge state-pending_failure" title="Its tests passed only when run again: flaky CI">FLAKY</span>`
            : null
        }
        <span class="muted">
          ${' '}<${Reason} reason=${pr.explanation} /> · <${Since} iso=${pr.stateChangedAt} /> ago<${ForgeLinks}
            pr=${pr}
          />
        </span>
      </li>`,
    )}
  </ul>`;
}

/**
 * The queue page. Reads the queue's activity and history, then follows its event stream until it is
 * unmounted; durations count on every second.
 * @param {{ queueKey: QueueKey }} props
 */
export function QueuePage({ queueKey }) {
  const [activity, setActivity] = useState(/** @type {QueueActivity | null} */ (null));
  const [history, setHistory] = useState(/** @type {QueueHistory | null} */ (null));
  const [error, setError] = useState(/** @type {unknown} */ (null));
  const [connection, setConnection] = useState(/** @type {Connection} */ ({ text: 'Connecting…', cls: 'waiting' }));
  const id = `${slug(queueKey)}/${queueKey.targetBranch}`;
  const title = queueLabel(queueKey);
  const can = useScopes();

  useEffect(() => {
    let stopped = false;
    let stop = () => {};
    let lastCharts = 0;
    /** @type {string | undefined} */
    let lastConcluded;
    const readHistory = async () => {
      lastCharts = Date.now();
      try {
        const fresh = await call('getQueueHistory', { ...queueKey, hours: 24 });
        if (!stopped) setHistory(fresh);
      } catch (err) {
        failed(err);
      }
    };
    /** @param {QueueActivity} a */
    const show = (a) => {
      const concluded = a.recentPullRequests[0]?.stateChangedAt;
      if (concluded !== lastConcluded || Date.now() - lastCharts > CHARTS_EVERY_MS) readHistory();
      lastConcluded = concluded;
      setActivity(a);
    };
    (async () => {
      try {
        const first = await call('getQueueActivity', queueKey);
        if (stopped) return;
        show(first);
        stop = follow(queueKey, show, setConnection);
      } catch (err) {
        if (!stopped && !failed(err)) setError(err);
      }
    })();
    return () => {
      stopped = true;
      stop();
    };
  }, [id]);

  usePageTitle(activity ? title : error ? `Cannot show ${title}` : null);
  if (error) return html`<${ApiProblem} error=${error} />`;
  if (!activity) return html`<p class="notice" role="status">Loading ${title}…</p>`;
  return html`<article aria-labelledby="queue-title">
    <div class="page-head">
      <h1 id="queue-title">${title}</h1>
      <span class=${`live ${connection.cls}`} role="status">${connection.text}</span>
      ${can('queues:write') ? html`<a href=${settingsHref(queueKey)}>Settings</a>` : null}
    </div>
    <${ManagementBanner} activity=${activity} />
    <${FreezeBanner} activity=${activity} />
    <${QueueHead} activity=${activity} />
    <${QuarantineNote} activity=${activity} />
    ${can('queues:write') ? html`<${Controls} queueKey=${queueKey} activity=${activity} title=${title} />` : null}
    <section aria-labelledby="runs-title" class="card" id="runs">
      <h2 id="runs-title">The queue now</h2>
      <${QueueGraph} queueKey=${queueKey} activity=${activity} />
    </section>
    <section aria-labelledby="prs-title" class="card" id="prs">
      <h2 id="prs-title">Pull requests in queue order</h2>
      <${PrTable} queueKey=${queueKey} activity=${activity} />
    </section>
    <section aria-labelledby="recent-title" class="card" id="recent">
      <h2 id="recent-title">Recently concluded</h2>
      <${RecentList} queueKey=${queueKey} activity=${activity} />
      <p><a href=${historyHref(queueKey)} id="history-link">History: every concluded PR, with filters</a></p>
    </section>
    <section aria-labelledby="charts-title">
      <h2 id="charts-title">The last 24 hours</h2>
      ${history ? html`<${HistoryCharts} history=${history} />` : html`<p class="muted">Loading the charts…</p>`}
    </section>
  </article>`;
}
