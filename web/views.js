// The dashboard's pages. Each returns { title, el, leave } where leave() stops its live updates.
import { confirmThen } from './actions.js';
import { call } from './api.js';
import { failed } from './app.js';
import { conclusionsChart, runsPerMergeChart, timeInQueueChart } from './charts.js';
import { badge, fill, h, since, time, until } from './dom.js';
import { prHref } from './links.js';
import { follow } from './live.js';
import { words } from './words.js';

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

/** Runs `action` after confirmation; reports the outcome in `status` in words (the error code in its tooltip). */
async function confirmed(dialog, status, action) {
  const outcome = await confirmThen(dialog, action);
  if (!outcome) return;
  status.className = outcome.ok ? 'notice' : 'error';
  status.textContent = outcome.text;
  status.title = outcome.code ?? '';
}

// ---------------------------------------------------------------------------------- one queue

/** One test run as a chain: base commit, the PRs merged underneath it, then the PRs under test. */
function runGraph(key, run) {
  const chip = (n, cls) =>
    h(
      'li',
      { class: `chip ${cls}` },
      h('a', { href: prHref(key, n), 'data-focus-key': `run-${run.testRunId}-${n}` }, `#${n}`),
    );
  const label = run.status === 'creating' ? 'building test commit' : 'testing';
  return h(
    'li',
    { class: 'run' },
    h(
      'div',
      { class: 'run-head' },
      h('strong', {}, `Run ${run.testRunId.slice(0, 8)}`),
      h(
        'span',
        {
          class: `badge ${run.queueType === 'bisection' ? 'state-pending_failure' : 'state-testing'}`,
          title: run.queueType,
        },
        words(run.queueType),
      ),
      h('span', { class: 'muted' }, `${label}, started `, since(run.createdAt), ' ago'),
      run.retries > 0
        ? h(
            'span',
            { class: 'badge state-pending_failure', title: 'CI is run again on the same test commit' },
            `RETRY ${run.retries}`,
          )
        : null,
    ),
    h(
      'ol',
      { class: 'chain', 'aria-label': `Run ${run.testRunId.slice(0, 8)} merges, in order` },
      h('li', { class: 'chip base' }, `${key.targetBranch} @ ${short(run.baseSha)}`),
      run.dependentPrs.map((n) => chip(n, 'dependent')),
      run.prNumbers.map((n) => chip(n, 'tested')),
    ),
    h(
      'p',
      { class: 'muted small' },
      run.dependentPrs.length
        ? `Tests #${run.prNumbers.join(', #')} on top of #${run.dependentPrs.join(', #')} (predicted to merge first).`
        : `Tests #${run.prNumbers.join(', #')} on ${key.targetBranch}.`,
    ),
  );
}

function runsView(key, activity) {
  if (activity.testRuns.length === 0) return h('p', { class: 'muted' }, 'No test runs in flight.');
  if (activity.mode !== 'parallel')
    return h(
      'ol',
      { class: 'runs' },
      activity.testRuns.map((r) => runGraph(key, r)),
    );
  const lanes = new Map();
  for (const r of activity.testRuns) {
    const lane = r.lane ?? r.prNumbers[0];
    lanes.set(lane, [...(lanes.get(lane) ?? []), r]);
  }
  return h(
    'div',
    { class: 'lanes' },
    [...lanes].map(([lane, runs]) =>
      h(
        'section',
        { class: 'lane', 'aria-label': `Lane of #${lane}` },
        h('h3', {}, `Lane #${lane}`),
        h(
          'ol',
          { class: 'runs' },
          runs.map((r) => runGraph(key, r)),
        ),
      ),
    ),
  );
}

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
    refill(runs, runsView(key, a));
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
    ({ text, cls }) => {
      indicator.textContent = text;
      indicator.className = `live ${cls}`;
    },
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
      h('h2', { id: 'runs-title' }, 'Test runs in flight'),
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
