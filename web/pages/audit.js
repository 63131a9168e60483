// @ts-check
// The audit log page (#/audit): who changed what in the organization, when and from where, newest
// first (listAuditEvents, docs/audit-log.md), filtered by repository, branch, actor, action and days,
// a page at a time. Reading it needs a token with the admin or audit:read scope; without one the
// page says so.
import { Loading, useCall, usePageTitle } from '../components.js';
import { html, useEffect, useState } from '../ui.js';

/** @typedef {import('../../src/client/index.js').ListAuditEventsRequest} AuditRequest */
/** @typedef {import('../../src/client/index.js').ListAuditEventsResponse} AuditPage */
/** @typedef {import('../../src/client/index.js').AuditEvent} AuditEvent */

/**
 * The filters as typed (repo as HOST/OWNER/NAME, days as YYYY-MM-DD) and the cursors of the pages
 * before the one shown.
 * @typedef {{ repo: string, targetBranch: string, actor: string, action: string, from: string, to: string,
 *   after: string[] }} View
 */

const TAKE = 25;
const EMPTY = /** @type {View} */ ({ repo: '', targetBranch: '', actor: '', action: '', from: '', to: '', after: [] });
/** The actions the filter offers (docs/audit-log.md has what each means). */
const ACTIONS = [
  'pull_request.submit',
  'pull_request.cancel',
  'pull_request.restart',
  'pull_request.merged_outside',
  'pull_request.set_impacted_targets',
  'test_run.report_status',
  'queue.create',
  'queue.delete',
  'queue.update',
  'queue.pause',
  'queue.resume',
  'queue.drain',
  'queue.state_change',
  'token.create',
  'token.revoke',
  'webhook.create',
  'webhook.delete',
  'webhook.rotate_secret',
  'webhook.enable',
  'webhook.redeliver',
  'notification_channel.create',
  'notification_channel.delete',
  'notification_channel.enable',
  'repo.connect',
  'repo.disconnect',
  'org.create',
];

const filtered = (/** @type {View} */ v) => Boolean(v.repo || v.targetBranch || v.actor || v.action || v.from || v.to);

/** The request of a view; a repository not written as HOST/OWNER/NAME is sent as it is, for the server to refuse in words. */
function requestOf(/** @type {View} */ v) {
  /** @type {AuditRequest} */
  const body = { take: TAKE };
  const [host = '', owner = '', name = ''] = v.repo.trim().split('/');
  if (v.repo.trim()) body.repo = { host, owner, name };
  if (v.targetBranch.trim()) body.targetBranch = v.targetBranch.trim();
  if (v.actor.trim()) body.actor = v.actor.trim();
  if (v.action) body.action = /** @type {AuditRequest['action']} */ (v.action);
  if (v.from) body.from = new Date(`${v.from}T00:00:00`).toISOString();
  if (v.to) body.to = new Date(`${v.to}T23:59:59.999`).toISOString();
  const cursor = v.after.at(-1);
  if (cursor) body.cursor = cursor;
  return body;
}

/** What an entry concerns, in a few words: its repository and branch, then the rest of its target. */
function targetText(/** @type {Record<string, unknown>} */ target) {
  const { org: _org, repo, targetBranch, ...rest } = target;
  const where = [repo, targetBranch].filter(Boolean).join(' → ');
  const more = Object.entries(rest).map(([k, v]) => `${k} ${typeof v === 'string' ? v : JSON.stringify(v)}`);
  return [where, ...more].filter(Boolean).join(' · ');
}

/** One entry as a table row. */
function Row(/** @type {{ e: AuditEvent }} */ { e }) {
  const changes = /** @type {Record<string, { from: unknown, to: unknown }> | null} */ (e.changes);
  const from = e.source ? [e.source.address, e.source.xSource ?? e.source.userAgent].filter(Boolean).join(' · ') : '';
  return html`<tr data-action=${e.action}>
    <td data-label="When"><time datetime=${e.at}>${new Date(e.at).toLocaleString()}</time></td>
    <th scope="row" data-label="Who">
      ${e.actor.name}
      <span class="muted block">${e.actor.kind === 'token' ? `token ${e.actor.id.slice(0, 8)}` : e.actor.kind.replace('_', ' ')}</span>
    </th>
    <td data-label="What" class="mono small">${e.action}</td>
    <td data-label="Target">${targetText(/** @type {Record<string, unknown>} */ (e.target))}</td>
    <td data-label="Changes">
      ${
        changes
          ? html`<ul class="plain">
              ${Object.entries(changes).map(
                ([k, c]) =>
                  html`<li><span class="mono small">${k}</span> ${JSON.stringify(c.from)} → ${JSON.stringify(c.to)}</li>`,
              )}
            </ul>`
          : '–'
      }
    </td>
    <td data-label="From" class="small">${from || '–'}</td>
  </tr>`;
}

/** The filters form: edits are applied together with "Apply filters". */
function Filters(/** @type {{ view: View, apply: (v: View) => void }} */ { view, apply }) {
  const [draft, setDraft] = useState(view);
  useEffect(() => setDraft(view), [view]);
  const field = (/** @type {Exclude<keyof View, 'after'>} */ name) => ({
    value: draft[name],
    onInput: (/** @type {Event} */ e) =>
      setDraft({ ...draft, [name]: /** @type {HTMLInputElement} */ (e.currentTarget).value }),
  });
  const submit = (/** @type {Event} */ e) => {
    e.preventDefault();
    apply({ ...draft, after: [] });
  };
  return html`<form class="filters" role="search" aria-label="Filter the audit log" onSubmit=${submit}>
    <div>
      <label for="a-repo">Repository</label>
      <input id="a-repo" type="text" autocomplete="off" placeholder="github.com/acme/web" ...${field('repo')} />
    </div>
    <div>
      <label for="a-branch">Branch</label>
      <input id="a-branch" type="text" autocomplete="off" ...${field('targetBranch')} />
    </div>
    <div>
      <label for="a-actor">Actor</label>
      <input id="a-actor" type="text" autocomplete="off" placeholder="token name, login, system" ...${field('actor')} />
    </div>
    <div>
      <label for="a-action">Action</label>
      <select id="a-action" ...${field('action')} onChange=${field('action').onInput}>
        <option value="">All actions</option>
        ${ACTIONS.map((a) => html`<option value=${a}>${a}</option>`)}
      </select>
    </div>
    <div>
      <label for="a-from">From</label>
      <input id="a-from" type="date" ...${field('from')} />
    </div>
    <div>
      <label for="a-to">To</label>
      <input id="a-to" type="date" ...${field('to')} />
    </div>
    <div class="filter-actions">
      <button type="submit">Apply filters</button>
      <button type="button" class="quiet" onClick=${() => apply(EMPTY)} disabled=${!filtered(view)}>Clear filters</button>
    </div>
  </form>`;
}

/** The audit log of the organization. */
export function AuditPage() {
  const [view, setView] = useState(EMPTY);
  const list = useCall('listAuditEvents', requestOf(view));
  const page = /** @type {AuditPage | null} */ (list.data);
  usePageTitle('Audit log');
  return html`<article aria-labelledby="audit-title" class="audit">
    <div class="page-head">
      <h1 id="audit-title">Audit log</h1>
      <a href="#/">Back to the queues</a>
    </div>
    <section class="card" aria-labelledby="audit-events-title" aria-busy=${list.loading ? 'true' : 'false'}>
      <h2 id="audit-events-title">Who changed what, newest first</h2>
      <${Filters} view=${view} apply=${setView} />
      ${list.error ? html`<p class="error" role="alert" id="audit-error">${list.error}</p>` : null}
      ${page === null && !list.error ? html`<${Loading} />` : null}
      ${
        page !== null && page.events.length === 0
          ? html`<p class="empty" id="audit-empty">${filtered(view) ? 'Nothing matches these filters.' : 'Nothing has been changed yet.'}</p>`
          : null
      }
      ${
        page !== null && page.events.length > 0
          ? html`<div class="table-wrap">
              <table class="responsive" id="audit-events">
                <caption class="visually-hidden">Audit log entries, newest first</caption>
                <thead>
                  <tr>
                    ${['When', 'Who', 'What', 'Target', 'Changes', 'From'].map((c) => html`<th scope="col">${c}</th>`)}
                  </tr>
                </thead>
                <tbody>
                  ${page.events.map((e) => html`<${Row} e=${e} />`)}
                </tbody>
              </table>
            </div>`
          : null
      }
      <nav class="pager" aria-label="Pages of the audit log" hidden=${view.after.length === 0 && !page?.nextCursor}>
        <button type="button" class="quiet" disabled=${view.after.length === 0} onClick=${() => setView({ ...view, after: view.after.slice(0, -1) })}>
          ← Newer
        </button>
        <span class="muted">Page ${view.after.length + 1}</span>
        <button
          type="button"
          class="quiet"
          disabled=${!page?.nextCursor}
          onClick=${() => page?.nextCursor && setView({ ...view, after: [...view.after, page.nextCursor] })}
        >
          Older →
        </button>
      </nav>
    </section>
  </article>`;
}
