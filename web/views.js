// The dashboard's pages. Each returns { title, el, leave } where leave() stops its live updates.
import { ApiError, call, stream } from './api.js';
import { failed } from './app.js';
import { conclusionsChart, runsPerMergeChart, timeInQueueChart } from './charts.js';
import { announce, badge, confirmDialog, fill, h, since, time, until } from './dom.js';
import { QueueGraph } from './graph.js';
import { prHref, queueHref } from './links.js';
import { html, render as mount } from './ui.js';

const TERMINAL = ['MERGED', 'FAILED', 'CANCELLED'];
/** The states whose tests can be restarted (the API refuses the others). */
const RESTARTABLE = ['TESTING', 'PENDING_FAILURE'];
const short = (sha) => (sha ? sha.slice(0, 8) : '–');
const upper = (state) => String(state).toUpperCase();
const repoLabel = (key) => `${key.repo.owner}/${key.repo.name}`;

/** Replaces the children of `el`, keeping keyboard focus on the element with the same data-focus-key. */
function refill(el, ...children) {
  const focused = el.contains(document.activeElement) ? document.activeElement?.dataset.focusKey : undefined;
  fill(el, ...children);
  if (focused) el.querySelector(`[data-focus-key="${CSS.escape(focused)}"]`)?.focus();
}

/**
 * Why a PR is in its state, as the API words it: the sentence, with its reason code in a tooltip and
 * its specifics (failed status, conflicting files, who cancelled) after it.
 */
function why(reason, cls = 'why') {
  return h(
    'span',
    { class: cls, title: reason.code, 'data-code': reason.code },
    reason.message,
    reason.detail ? h('span', { class: 'detail-inline' }, ` ${reason.detail}`) : null,
  );
}

/** A link to a page CI reported (http or https only: a reported URL is not trusted); null otherwise. */
function externalLink(url, text) {
  return /^https?:\/\//i.test(url ?? '')
    ? [' ', h('a', { href: url, rel: 'noopener noreferrer', target: '_blank' }, text)]
    : null;
}

function errorText(err) {
  return err instanceof ApiError ? `${err.code}: ${err.message}` : String(err);
}

/** Runs `action` after confirmation; reports the outcome in `status` and to screen readers. */
async function confirmed(dialog, status, action, done) {
  if (!(await confirmDialog(dialog))) return;
  try {
    await action();
    status.className = 'notice';
    status.textContent = `${dialog.action}: done.`;
    announce(status.textContent);
    await done?.();
  } catch (err) {
    if (failed(err)) return;
    status.className = 'error';
    status.textContent = `${dialog.action} failed: ${errorText(err)}`;
    announce(status.textContent);
  }
}

/**
 * Follows a queue's server-sent events, reconnecting after a break; `indicator` shows the state of
 * the connection. Returns the function that stops it.
 */
function follow(key, onActivity, indicator) {
  const controller = new AbortController();
  let stopped = false;
  const show = (text, cls) => {
    indicator.textContent = text;
    indicator.className = `live ${cls}`;
  };
  (async () => {
    while (!stopped) {
      try {
        show('Connecting…', 'waiting');
        await stream(
          { repo: repoLabel(key), repoHost: key.repo.host, targetBranch: key.targetBranch },
          (name, data) => {
            if (name !== 'activity') return;
            show('Live', 'on');
            onActivity(data);
          },
          controller.signal,
        );
      } catch (err) {
        if (stopped) return;
        if (failed(err)) return;
        if (err instanceof ApiError && err.status === 404) {
          show(`Not live: ${err.message}`, 'off');
          return;
        }
      }
      if (stopped) return;
      show('Reconnecting…', 'waiting');
      await new Promise((resolve) => setTimeout(resolve, 3000));
    }
  })();
  return () => {
    stopped = true;
    controller.abort();
  };
}

// ---------------------------------------------------------------------------------- queues

/** Who manages the queue's settings, for the list of queues. */
function managedNote(q) {
  if (q.managedBy !== 'terraform') return null;
  return q.driftSince === null ? ' · managed by Terraform' : ' · changed outside Terraform';
}

/** The organization's chat notification channels, with how their latest message went. */
function channelsSection(channels) {
  if (channels.length === 0) return null;
  const rows = channels.map((c) => {
    const state = !c.enabled
      ? `disabled: ${c.disabledReason ?? ''}`
      : c.failingSince
        ? `failing since ${new Date(c.failingSince).toLocaleString()}`
        : 'enabled';
    const m = c.lastMessage;
    const last = m
      ? `${m.event}: ${m.status}, ${m.attempts} attempt(s)${m.lastError ? ` — ${m.lastError}` : ''}`
      : 'none yet';
    return h(
      'tr',
      {},
      h(
        'th',
        { scope: 'row', 'data-label': 'Channel' },
        c.kind,
        h('span', { class: 'muted block' }, new URL(c.url).host),
      ),
      h('td', { 'data-label': 'Queues' }, c.queue ? `${c.queue.repo} → ${c.queue.branch}` : 'all queues'),
      h('td', { 'data-label': 'Events' }, c.events.join(', ')),
      h('td', { 'data-label': 'State' }, state),
      h('td', { 'data-label': 'Latest message' }, last),
    );
  });
  return h(
    'section',
    { 'aria-labelledby': 'channels-title' },
    h('h2', { id: 'channels-title' }, 'Chat notifications'),
    h(
      'div',
      { class: 'table-wrap' },
      h(
        'table',
        { class: 'responsive' },
        h('caption', { class: 'visually-hidden' }, 'Chat channels the queue events are sent to (greenline notify)'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ['Channel', 'Queues', 'Events', 'State', 'Latest message'].map((c) => h('th', { scope: 'col' }, c)),
          ),
        ),
        h('tbody', {}, rows),
      ),
    ),
  );
}

export async function queuesPage() {
  const [{ queues }, { channels }] = await Promise.all([call('listQueues'), call('listNotificationChannels')]);
  const rows = queues.map((q) => {
    const key = { repo: q.repo, targetBranch: q.targetBranch };
    return h(
      'tr',
      {},
      h(
        'th',
        { scope: 'row', 'data-label': 'Queue' },
        h('a', { href: queueHref(key) }, `${repoLabel(key)} → ${q.targetBranch}`),
        h('span', { class: 'muted block' }, q.repo.host, managedNote(q)),
      ),
      h('td', { 'data-label': 'State' }, badge(q.state)),
      h('td', { 'data-label': 'Mode' }, `${q.mode}, ${q.concurrency} at once${q.batch ? ', batching' : ''}`),
      h(
        'td',
        { 'data-label': 'Depth', class: 'num' },
        String(q.depth),
        q.notReady ? h('span', { class: 'muted' }, ` (+${q.notReady} not ready)`) : null,
      ),
      h('td', { 'data-label': 'Testing', class: 'num' }, String(q.testing)),
      h('td', { 'data-label': 'Merged / h', class: 'num' }, String(q.mergedLastHour)),
      h('td', { 'data-label': 'Failed / h', class: 'num' }, String(q.failedLastHour)),
    );
  });
  const el = h(
    'section',
    { 'aria-labelledby': 'queues-title' },
    h('h1', { id: 'queues-title' }, 'Queues'),
    queues.length === 0
      ? h(
          'p',
          { class: 'card' },
          'No queues yet. Connect a repository (greenline repo connect) and create a queue with POST /v1/createQueue, or try greenline demo.',
        )
      : h(
          'div',
          { class: 'table-wrap' },
          h(
            'table',
            { class: 'responsive' },
            h('caption', { class: 'visually-hidden' }, 'Queues of the organization; throughput counts the last hour'),
            h(
              'thead',
              {},
              h(
                'tr',
                {},
                ['Queue', 'State', 'Mode', 'Depth', 'Testing', 'Merged / h', 'Failed / h'].map((c) =>
                  h('th', { scope: 'col' }, c),
                ),
              ),
            ),
            h('tbody', {}, rows),
          ),
        ),
    channelsSection(channels),
  );
  return { title: 'Queues', el };
}

// ---------------------------------------------------------------------------------- one queue

function prTable(key, activity) {
  if (activity.pullRequests.length === 0) return h('p', { class: 'muted' }, 'The queue is empty.');
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
  return h(
    'div',
    { class: 'table-wrap' },
    h(
      'table',
      { class: 'responsive', id: 'queue-prs' },
      h('caption', { class: 'visually-hidden' }, 'Pull requests in queue order'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          cols.map((c) => h('th', { scope: 'col' }, c)),
        ),
      ),
      h(
        'tbody',
        {},
        activity.pullRequests.map((pr) =>
          h(
            'tr',
            { 'data-pr': pr.prNumber, 'data-state': upper(pr.state) },
            h(
              'td',
              { 'data-label': parallel ? 'Position in lane' : 'Position', class: 'num' },
              pr.position === null ? '–' : String(pr.position),
            ),
            h(
              'th',
              { scope: 'row', 'data-label': 'Pull request' },
              h(
                'a',
                { href: prHref(key, pr.prNumber), 'data-focus-key': `pr-${pr.prNumber}` },
                `#${pr.prNumber} ${pr.prTitle}`,
              ),
              h('span', { class: 'muted block' }, `by ${pr.prAuthor}`),
            ),
            h(
              'td',
              { 'data-label': 'State' },
              badge(pr.state),
              why(pr.explanation, 'why muted block small'),
              pr.waitingOn ? why(pr.waitingOn, 'waiting-on muted block small') : null,
            ),
            h('td', { 'data-label': 'Priority' }, `${pr.priorityName} (${pr.priorityValue})`),
            h('td', { 'data-label': 'Time in queue' }, since(pr.admittedAt ?? pr.submittedAt)),
            h(
              'td',
              { 'data-label': 'Estimated merge', class: 'eta' },
              pr.estimatedMergeAt ? until(pr.estimatedMergeAt) : h('span', { class: 'muted' }, 'unknown'),
            ),
            parallel ? h('td', { 'data-label': 'Lane' }, pr.lane === null ? '–' : `#${pr.lane}`) : null,
            h('td', { 'data-label': 'Test run', class: 'mono' }, pr.testRunId ? pr.testRunId.slice(0, 8) : '–'),
          ),
        ),
      ),
    ),
  );
}

function recentView(key, activity) {
  if (activity.recentPullRequests.length === 0) return h('p', { class: 'muted' }, 'Nothing has concluded yet.');
  return h(
    'ul',
    { class: 'recent', id: 'recent-prs' },
    activity.recentPullRequests.map((pr) =>
      h(
        'li',
        { 'data-pr': pr.prNumber, 'data-state': upper(pr.state) },
        badge(pr.state),
        ' ',
        h(
          'a',
          { href: prHref(key, pr.prNumber), 'data-focus-key': `recent-${pr.prNumber}` },
          `#${pr.prNumber} ${pr.prTitle}`,
        ),
        pr.flaky
          ? h(
              'span',
              { class: 'badge state-pending_failure', title: 'Its tests passed only when run again: flaky CI' },
              'FLAKY',
            )
          : null,
        h('span', { class: 'muted' }, ' ', why(pr.explanation), ' · ', since(pr.stateChangedAt), ' ago'),
      ),
    ),
  );
}

/**
 * The banner of a queue whose settings Terraform manages: managed, or changed outside Terraform since
 * a time (a write from anywhere else after Terraform's last one, this page's buttons included).
 */
function managementBanner(a) {
  if (a.managedBy !== 'terraform') return null;
  if (a.driftSince === null) {
    return h(
      'p',
      { class: 'banner managed', id: 'management' },
      h('strong', {}, 'Managed by Terraform.'),
      ' Change its settings in the Terraform configuration; a change made here or through the API counts as a change outside Terraform.',
    );
  }
  return h(
    'p',
    { class: 'banner drift', id: 'management' },
    h('strong', {}, 'Changed outside Terraform since ', h('time', { datetime: a.driftSince }, time(a.driftSince)), '.'),
    ' The queue is managed by Terraform, but its settings or state were changed from elsewhere ',
    since(a.driftSince),
    ' ago. Run terraform plan to see what differs from the configuration.',
  );
}

/**
 * A queue with freezes: frozen (until when and why; nothing merges but urgent and exempt PRs), or the
 * next freeze. Nothing for a queue without freezes.
 */
function freezeBanner(a) {
  if (a.frozen === true) {
    return h(
      'p',
      { class: 'banner frozen', id: 'freeze' },
      h(
        'strong',
        {},
        'Frozen until ',
        h('time', { datetime: a.frozenUntil }, time(a.frozenUntil)),
        ': ',
        a.frozenReason,
        '.',
      ),
      ' Nothing merges until then, except urgent PRs and PRs with an exempt label.',
    );
  }
  if (!a.nextFreeze) return null;
  const next = a.nextFreeze;
  return h(
    'p',
    { class: 'muted', id: 'freeze' },
    'Next freeze: ',
    h('time', { datetime: next.from }, time(next.from)),
    ' to ',
    h('time', { datetime: next.until }, time(next.until)),
    ` (${next.reason}).`,
  );
}

const CONTROLS = [
  {
    state: 'PAUSED',
    label: 'Pause',
    text: 'Pause the queue: no new test runs start; runs in flight finish and can still merge.',
  },
  { state: 'RUNNING', label: 'Resume', text: 'Resume the queue: it starts test runs again.' },
  {
    state: 'DRAINING',
    label: 'Drain',
    text: 'Drain the queue: PRs already in it are tested and merged, new submissions are refused.',
  },
];

const outsideTerraform = (a) =>
  a.managedBy === 'terraform' ? ' Terraform manages this queue: this counts as a change outside Terraform.' : '';

export async function queuePage(key) {
  const [activity, history] = await Promise.all([
    call('getQueueActivity', key),
    call('getQueueHistory', { ...key, hours: 24 }),
  ]);
  const title = `${repoLabel(key)} → ${key.targetBranch}`;
  const head = h('div', { class: 'queue-state' });
  const management = h('div', {});
  const status = h('p', { role: 'status', class: 'notice', hidden: true });
  const controls = h('div', { class: 'controls', role: 'group', 'aria-label': 'Queue state' });
  const runs = h('div', { id: 'runs' });
  const prs = h('div', { id: 'prs' });
  const recent = h('div', { id: 'recent' });
  const charts = h('div', { class: 'charts', id: 'charts' });
  const indicator = h('span', { class: 'live waiting', role: 'status' }, 'Connecting…');
  let current = activity;

  const refreshCharts = async () => {
    try {
      const fresh = await call('getQueueHistory', { ...key, hours: 24 });
      fill(charts, conclusionsChart(fresh), timeInQueueChart(fresh), runsPerMergeChart(fresh));
    } catch (err) {
      failed(err);
    }
  };
  const render = (a) => {
    current = a;
    fill(management, managementBanner(a), freezeBanner(a));
    fill(
      head,
      badge(a.state),
      h(
        'span',
        {},
        ` ${a.mode} mode, ${a.concurrency} at once${a.batch ? ', batching' : ''}; target at ${short(a.targetSha)}`,
      ),
      h(
        'span',
        { class: 'muted', id: 'ci-settings' },
        ` · testing timeout ${a.testingTimeoutMinutesInForce} min${a.testingTimeoutMinutes === 'auto' ? ' (auto, from recent runs)' : ''}`,
        a.ciRetries > 0 ? ` · failed runs retried up to ${a.ciRetries}×` : '',
      ),
    );
    refill(
      controls,
      CONTROLS.map((c) =>
        h(
          'button',
          {
            type: 'button',
            'data-focus-key': `control-${c.state}`,
            disabled: upper(a.state) === c.state,
            onclick: () => {
              status.hidden = false;
              confirmed(
                { title: `${c.label} ${title}?`, text: c.text + outsideTerraform(a), action: c.label },
                status,
                () => call('updateQueue', { ...key, state: c.state }),
              );
            },
          },
          c.label,
        ),
      ),
    );
    mount(html`<${QueueGraph} queueKey=${key} activity=${a} />`, runs);
    refill(prs, prTable(key, a));
    refill(recent, recentView(key, a));
  };
  render(activity);
  fill(charts, conclusionsChart(history), timeInQueueChart(history), runsPerMergeChart(history));

  let lastCharts = Date.now();
  const stop = follow(
    key,
    (a) => {
      const concluded = a.recentPullRequests[0]?.stateChangedAt !== current.recentPullRequests[0]?.stateChangedAt;
      render(a);
      if (concluded || Date.now() - lastCharts > 30_000) {
        lastCharts = Date.now();
        refreshCharts();
      }
    },
    indicator,
  );

  const el = h(
    'article',
    { 'aria-labelledby': 'queue-title' },
    h('div', { class: 'page-head' }, h('h1', { id: 'queue-title' }, title), indicator),
    management,
    head,
    controls,
    status,
    h(
      'section',
      { 'aria-labelledby': 'runs-title', class: 'card' },
      h('h2', { id: 'runs-title' }, 'The queue now'),
      runs,
    ),
    h(
      'section',
      { 'aria-labelledby': 'prs-title', class: 'card' },
      h('h2', { id: 'prs-title' }, 'Pull requests in queue order'),
      prs,
    ),
    h(
      'section',
      { 'aria-labelledby': 'recent-title', class: 'card' },
      h('h2', { id: 'recent-title' }, 'Recently concluded'),
      recent,
    ),
    h('section', { 'aria-labelledby': 'charts-title' }, h('h2', { id: 'charts-title' }, 'The last 24 hours'), charts),
  );
  return { title, el, leave: stop };
}

// ---------------------------------------------------------------------------------- one PR

function timelineView(timeline) {
  if (!timeline?.length) return h('p', { class: 'muted' }, 'No transitions recorded.');
  return h(
    'ol',
    { class: 'timeline', id: 'timeline' },
    timeline.map((t) =>
      h(
        'li',
        {},
        h('time', { datetime: t.at }, time(t.at)),
        h('div', {}, t.fromState ? badge(t.fromState) : h('span', { class: 'muted' }, 'new'), ' → ', badge(t.toState)),
        h(
          'div',
          {},
          h('span', { class: 'why', title: t.reason, 'data-code': t.reason }, t.message),
          t.testRunId ? h('span', { class: 'muted' }, ` run ${t.testRunId.slice(0, 8)}`) : null,
        ),
        t.detail ? h('p', { class: 'detail' }, t.detail) : null,
      ),
    ),
  );
}

/**
 * What a run that never reached CI says instead of a log: its test commit was not built, and why
 * (the timeline item of the run that ended it, e.g. a merge conflict with the files).
 */
function noCiRan(items) {
  const ended = items.find((t) => t.detail || t.reason.startsWith('START_TEST_RUN_')) ?? items[0];
  return h(
    'div',
    { class: 'no-ci' },
    h('p', {}, h('strong', {}, 'No CI ran: '), 'the test commit of this run was never built, so there is no log.'),
    ended
      ? h(
          'p',
          { class: 'detail' },
          h('span', { title: ended.reason, 'data-code': ended.reason }, ended.message),
          ended.detail ? ` ${ended.detail}` : null,
        )
      : null,
  );
}

async function runView(key, testRunId, items) {
  let details;
  try {
    details = await call('getMergeQueueTestingDetails', { ...key, testRunId });
  } catch (err) {
    if (failed(err)) throw err;
    return h(
      'li',
      { class: 'card' },
      h('h3', {}, `Run ${testRunId.slice(0, 8)}`),
      h('p', { class: 'error' }, errorText(err)),
    );
  }
  const logBox = h('div', { class: 'log-box' });
  const logButton = h(
    'button',
    {
      type: 'button',
      class: 'quiet',
      'aria-expanded': 'false',
      onclick: async () => {
        if (logButton.getAttribute('aria-expanded') === 'true') {
          logButton.setAttribute('aria-expanded', 'false');
          logButton.textContent = 'Show log';
          fill(logBox);
          return;
        }
        logButton.setAttribute('aria-expanded', 'true');
        logButton.textContent = 'Hide log';
        fill(logBox, h('p', { class: 'muted' }, 'Loading the log…'));
        try {
          const text = await call('getTestRunLog', { ...key, testRunId });
          fill(
            logBox,
            h(
              'pre',
              { class: 'log', tabindex: '0', 'aria-label': `Log of run ${testRunId.slice(0, 8)}` },
              text || '(empty log)',
            ),
          );
        } catch (err) {
          if (!failed(err))
            fill(logBox, h('p', { class: err.code === 'LOG_NOT_FOUND' ? 'muted' : 'error' }, errorText(err)));
        }
      },
    },
    'Show log',
  );
  return h(
    'li',
    { class: 'card run-card' },
    h('h3', {}, `Run ${testRunId.slice(0, 8)} `, badge(details.status)),
    h(
      'dl',
      { class: 'facts' },
      h('dt', {}, 'Tested PRs'),
      h('dd', {}, details.testedPullRequests.map((p) => `#${p.prNumber}`).join(', ') || '–'),
      h('dt', {}, 'Merged underneath'),
      h('dd', {}, details.dependentPrs?.length ? details.dependentPrs.map((n) => `#${n}`).join(', ') : 'none'),
      h('dt', {}, 'Test branch'),
      h('dd', { class: 'mono' }, details.testBranch),
      h('dt', {}, 'Test commit'),
      h('dd', { class: 'mono' }, short(details.testBranchSha)),
      h('dt', {}, 'Started'),
      h('dd', {}, time(details.createdAt)),
      h('dt', {}, 'Required'),
      h('dd', {}, details.requiredStatuses.join(', ') || 'none'),
    ),
    details.testBranchSha === null && details.status !== 'in_progress'
      ? noCiRan(items)
      : [
          h('h4', {}, 'CI statuses'),
          details.statusChecks.length === 0
            ? h('p', { class: 'muted' }, 'No status reported yet.')
            : h(
                'ul',
                { class: 'checks' },
                details.statusChecks.map((c) =>
                  h(
                    'li',
                    {},
                    badge(c.state),
                    ' ',
                    h('code', {}, c.context),
                    c.description ? h('span', { class: 'muted' }, ` ${c.description}`) : null,
                    externalLink(c.url, 'details'),
                  ),
                ),
              ),
          logButton,
          logBox,
        ],
  );
}

export async function prPage(key, number) {
  const title = `#${number} in ${repoLabel(key)} → ${key.targetBranch}`;
  const body = h('div');
  const status = h('p', { role: 'status', class: 'notice', hidden: true });

  const load = async () => {
    const pr = await call('getSubmittedPullRequest', { ...key, pr: { number }, includeTimeline: true });
    const runIds = [...new Set((pr.timeline ?? []).map((t) => t.testRunId).filter(Boolean))];
    const runs = await Promise.all(
      runIds.map((id) =>
        runView(
          key,
          id,
          pr.timeline.filter((t) => t.testRunId === id),
        ),
      ),
    );
    const active = !TERMINAL.includes(upper(pr.state));
    const restartable = RESTARTABLE.includes(upper(pr.state));
    const actions = active
      ? h(
          'div',
          { class: 'controls', role: 'group', 'aria-label': 'Pull request actions' },
          h(
            'button',
            {
              type: 'button',
              class: 'danger',
              'data-focus-key': 'cancel',
              onclick: () => {
                status.hidden = false;
                confirmed(
                  {
                    title: `Cancel #${number}?`,
                    text: `#${number} leaves the queue; its test runs stop. It can be submitted again later.`,
                    action: 'Cancel PR',
                  },
                  status,
                  () => call('cancelPullRequest', { ...key, pr: { number } }),
                  reload,
                );
              },
            },
            'Cancel PR',
          ),
          restartable
            ? h(
                'button',
                {
                  type: 'button',
                  'data-focus-key': 'restart',
                  onclick: () => {
                    status.hidden = false;
                    confirmed(
                      {
                        title: `Restart the tests of #${number}?`,
                        text: `#${number} goes back to PENDING and is tested again.`,
                        action: 'Restart tests',
                      },
                      status,
                      () => call('restartTestsOnPullRequest', { ...key, pr: { number } }),
                      reload,
                    );
                  },
                },
                'Restart tests',
              )
            : null,
        )
      : null;
    refill(
      body,
      h('div', { class: 'page-head' }, h('h1', { id: 'pr-title' }, `#${pr.prNumber} ${pr.prTitle}`), badge(pr.state)),
      h(
        'dl',
        { class: 'facts card' },
        h('dt', {}, 'Queue'),
        h('dd', {}, h('a', { href: queueHref(key) }, `${repoLabel(key)} → ${key.targetBranch}`)),
        h('dt', {}, 'Author'),
        h('dd', {}, pr.prAuthor),
        h('dt', {}, 'Head'),
        h('dd', { class: 'mono' }, short(pr.prSha)),
        h('dt', {}, 'Priority'),
        h('dd', {}, `${pr.priorityName} (${pr.priorityValue})`),
        h('dt', {}, 'In state since'),
        h('dd', {}, time(pr.stateChangedAt), ' (', since(pr.stateChangedAt), ' ago)'),
        h('dt', {}, 'Why'),
        h('dd', { id: 'pr-reason' }, why(pr.reason), externalLink(pr.reason.url, 'failed check')),
        ...(pr.waitingOn
          ? [
              h('dt', {}, 'Position'),
              h('dd', { id: 'pr-position' }, pr.position === null ? 'not admitted yet' : String(pr.position)),
              h('dt', {}, 'Waiting on'),
              h('dd', { id: 'pr-waiting-on' }, why(pr.waitingOn)),
              h('dt', {}, 'Estimated merge'),
              h(
                'dd',
                { id: 'pr-eta' },
                pr.estimatedMergeAt ? [time(pr.estimatedMergeAt), ' (', until(pr.estimatedMergeAt), ')'] : 'unknown',
              ),
            ]
          : []),
      ),
      actions,
      h(
        'section',
        { 'aria-labelledby': 'timeline-title', class: 'card' },
        h('h2', { id: 'timeline-title' }, 'Timeline'),
        h('p', { class: 'muted' }, 'Newest first: every state change with its reason.'),
        timelineView(pr.timeline),
      ),
      h(
        'section',
        { 'aria-labelledby': 'pr-runs-title' },
        h('h2', { id: 'pr-runs-title' }, 'Test runs'),
        runs.length === 0 ? h('p', { class: 'muted' }, 'Not tested yet.') : h('ol', { class: 'run-list' }, runs),
      ),
    );
    return pr;
  };
  const reload = async () => {
    try {
      await load();
    } catch (err) {
      if (!failed(err)) {
        status.hidden = false;
        status.className = 'error';
        status.textContent = errorText(err);
      }
    }
  };
  let last = await load();
  const indicator = h('span', { class: 'live waiting', role: 'status' }, 'Connecting…');
  const stop = follow(
    key,
    async (a) => {
      const now =
        a.pullRequests.find((p) => p.prNumber === number) ?? a.recentPullRequests.find((p) => p.prNumber === number);
      if (now && now.stateChangedAt !== last.stateChangedAt) {
        try {
          last = await load();
          announce(`#${number} is now ${upper(last.state)}`);
        } catch (err) {
          failed(err);
        }
      }
    },
    indicator,
  );
  return {
    title,
    el: h('article', { 'aria-labelledby': 'pr-title' }, h('p', { class: 'live-line' }, indicator), body, status),
    leave: stop,
  };
}
