// @ts-check
// The queues page (#/): every queue of the organization with its state, mode, depth and last hour's
// throughput, links to its queue, settings and history pages, and the organization's chat
// notification channels, read again every few seconds, and a link to the audit log. Without queues
// it says how to create one.
import { call, failed } from '../api.js';
import { ApiProblem, Badge, Loading, usePageTitle } from '../components.js';
import { historyHref, queueHref, queueLabel, settingsHref } from '../links.js';
import { tokenHas, useScopes } from '../permissions.js';
import { html, useCallback, useEffect, useState } from '../ui.js';
import { words } from '../words.js';

/** @typedef {import('../../src/client/index.js').ListQueuesResponse['queues'][number]} QueueSummary */
/** @typedef {import('../../src/client/index.js').NotificationChannel} NotificationChannel */
/**
 * @typedef {{ status: 'loading' }
 *   | { status: 'shown', queues: QueueSummary[], channels: NotificationChannel[], at: Date }
 *   | { status: 'failed', error: unknown }} State
 */

/** @param {QueueSummary} q Who manages the queue's settings. */
function managedNote(q) {
  if (q.managedBy !== 'terraform') return null;
  return q.driftSince === null ? ' · managed by Terraform' : ' · changed outside Terraform';
}

/** @param {{ q: QueueSummary }} props One queue: its links, state, mode, depth and throughput. */
function QueueRow({ q }) {
  const can = useScopes();
  const key = { repo: q.repo, targetBranch: q.targetBranch };
  const label = queueLabel(key);
  return html`<tr>
    <th scope="row" data-label="Queue">
      <a href=${queueHref(key)}>${label}</a>
      <span class="muted block">${q.repo.host}${managedNote(q)}</span>
      <span class="queue-links block">
        ${can('queues:write') ? html`<a href=${settingsHref(key)}>Settings<span class="visually-hidden"> of ${label}</span></a>` : null}
        <a href=${historyHref(key)}>History<span class="visually-hidden"> of ${label}</span></a>
      </span>
    </th>
    <td data-label="State"><${Badge} state=${q.state} /></td>
    <td data-label="Mode">${q.mode}, ${q.concurrency} at once${q.batch ? ', batching' : ''}</td>
    <td data-label="Depth" class="num">
      ${q.depth}${q.notReady ? html`<span class="muted"> (+${q.notReady} not ready)</span>` : null}
    </td>
    <td data-label="Testing" class="num">${q.testing}</td>
    <td data-label="Merged / h" class="num">${q.mergedLastHour}</td>
    <td data-label="Failed / h" class="num">${q.failedLastHour}</td>
  </tr>`;
}

/** @param {{ queues: QueueSummary[] }} props */
function QueuesTable({ queues }) {
  return html`<div class="table-wrap">
    <table class="responsive">
      <caption class="visually-hidden">Queues of the organization; throughput counts the last hour</caption>
      <thead>
        <tr>
          ${['Queue', 'State', 'Mode', 'Depth', 'Testing', 'Merged / h', 'Failed / h'].map(
            (c) => html`<th scope="col">${c}</th>`,
          )}
        </tr>
      </thead>
      <tbody>
        ${queues.map((q) => html`<${QueueRow} key=${queueHref(q)} q=${q} />`)}
      </tbody>
    </table>
  </div>`;
}

/**
 * No queues yet: the steps of the README's quick start, with this server's address, and the demo.
 * The page reads the list again by itself, so the new queue shows up here.
 * @param {{ at: Date }} props
 */
function NoQueues({ at }) {
  const url = location.origin;
  const connect = `npx greenline repo connect github.com/acme/web --org default --forge git \\
  --remote /srv/git/web.git --ci-command "npm ci && npm test"`;
  const create = `curl -s ${url}/v1/createQueue -H "x-api-token: $TOKEN" -H 'content-type: application/json' \\
  -d '{"repo":{"host":"github.com","owner":"acme","name":"web"},"targetBranch":"main","concurrency":3}'`;
  return html`<section class="card empty" aria-labelledby="no-queues-title">
    <h2 id="no-queues-title">No queues yet</h2>
    <p>A queue merges the pull requests of one branch of a connected repository. To create the first one:</p>
    <ol class="steps">
      <li>
        <p>
          Connect the repository, on the server's machine, with the same <code>--data-dir</code> or${' '}
          <code>--database-url</code> as <code>greenline serve</code> (for GitHub, <code>--forge github</code>: see
          docs/github.md):
        </p>
        <pre><code>${connect}</code></pre>
      </li>
      <li>
        <p>Create the queue of its branch, with <code>TOKEN</code> set to the token you signed in with:</p>
        <pre><code>${create}</code></pre>
      </li>
      <li>
        <p>Submit pull requests to it: <code>POST /v1/submitPullRequest</code>, or Trunk's merge action.</p>
      </li>
    </ol>
    <p>
      To see a queue at work first, <code>npx greenline demo</code> starts a server with a sample repository, a
      queue and 15 pull requests.
    </p>
    <p class="muted">
      This page follows the list by itself: your queue shows up here once created (checked at${' '}
      ${at.toLocaleTimeString()}).
    </p>
  </section>`;
}

/** @param {{ channels: NotificationChannel[] }} props The organization's chat notification channels, with how their latest message went. */
function Channels({ channels }) {
  if (channels.length === 0) return null;
  return html`<section aria-labelledby="channels-title">
    <h2 id="channels-title">Chat notifications</h2>
    <div class="table-wrap">
      <table class="responsive">
        <caption class="visually-hidden">Chat channels the queue events are sent to (greenline notify)</caption>
        <thead>
          <tr>
            ${['Channel', 'Queues', 'Events', 'State', 'Latest message'].map((c) => html`<th scope="col">${c}</th>`)}
          </tr>
        </thead>
        <tbody>
          ${channels.map((c) => {
            const state = !c.enabled
              ? `disabled: ${c.disabledReason ?? ''}`
              : c.failingSince
                ? `failing since ${new Date(c.failingSince).toLocaleString()}`
                : 'enabled';
            const m = c.lastMessage;
            const last = m
              ? `${words(m.event)}: ${words(m.status).toLowerCase()}, ${m.attempts} attempt(s)${m.lastError ? ` — ${m.lastError}` : ''}`
              : 'none yet';
            return html`<tr key=${c.id}>
              <th scope="row" data-label="Channel">${words(c.kind)}<span class="muted block">${new URL(c.url).host}</span></th>
              <td data-label="Queues">${c.queue ? `${c.queue.repo} → ${c.queue.branch}` : 'all queues'}</td>
              <td data-label="Events" title=${c.events.join(', ')}>${c.events.map(words).join(', ')}</td>
              <td data-label="State">${state}</td>
              <td data-label="Latest message">${last}</td>
            </tr>`;
          })}
        </tbody>
      </table>
    </div>
  </section>`;
}

/** How often the page reads the list again while it is shown (and the tab visible). */
const REFRESH_MS = 5000;

export function QueuesPage() {
  const [state, setState] = useState(/** @type {State} */ ({ status: 'loading' }));
  /** Reads the list; returns the function that ignores its answer (a newer read or the page left). */
  const load = useCallback(() => {
    let stale = false;
    // The chat channels are an administrator's: a token without admin is not shown them.
    const channels = tokenHas('admin').then((admin) => (admin ? call('listNotificationChannels') : { channels: [] }));
    Promise.all([call('listQueues'), channels]).then(
      ([{ queues }, { channels }]) => {
        if (!stale) setState({ status: 'shown', queues, channels, at: new Date() });
      },
      (error) => {
        if (!stale && !failed(error)) setState({ status: 'failed', error });
      },
    );
    return () => {
      stale = true;
    };
  }, []);
  // Live: read again every few seconds; Preact patches the rows in place, so focus and scroll stay.
  useEffect(() => {
    let ignore = load();
    const timer = setInterval(() => {
      if (document.hidden) return;
      ignore();
      ignore = load();
    }, REFRESH_MS);
    return () => {
      clearInterval(timer);
      ignore();
    };
  }, []);
  usePageTitle(state.status === 'shown' ? 'Queues' : null);

  if (state.status === 'loading') return html`<${Loading} />`;
  if (state.status === 'failed') return html`<${ApiProblem} error=${state.error} retry=${load} home=${false} />`;
  return html`<section aria-labelledby="queues-title">
      <div class="page-head">
        <h1 id="queues-title">Queues</h1>
        <a href="#/audit" id="audit-link">Audit log</a>
      </div>
      ${state.queues.length === 0 ? html`<${NoQueues} at=${state.at} />` : html`<${QueuesTable} queues=${state.queues} />`}
    </section>
    <${Channels} channels=${state.channels} />`;
}
