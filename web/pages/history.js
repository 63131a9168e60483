// @ts-check
// The history page (#/history/<host>/<owner>/<name>/<branch>?…): every concluded PR of a queue,
// filtered and a page at a time (listConcludedPullRequests), and the queue's charts
// (getQueueHistory). The filters, the page and the charts' range are kept in the address's query, so
// a filtered view can be linked to and survives a reload.
import { HistoryCharts } from '../charts.js';
import { Badge, Reason, useCall, usePageTitle } from '../components.js';
import { duration } from '../dom.js';
import { prHref, queueHref, queueLabel } from '../links.js';
import { html, useEffect, useState } from '../ui.js';

/** @typedef {import('../../src/client/index.js').QueueRequest} QueueKey */
/** @typedef {import('../../src/client/index.js').ListConcludedPullRequestsRequest} ConcludedRequest */
/** @typedef {import('../../src/client/index.js').ListConcludedPullRequestsResponse} ConcludedPage */
/** @typedef {import('../../src/client/index.js').ConcludedPullRequest} ConcludedPr */
/** @typedef {import('../../src/client/index.js').QueueHistory} QueueHistory */

/**
 * What the page shows, as the address's query says it. `after`: the cursors of the pages before the
 * one shown (the last one gives this page); dates are local days, YYYY-MM-DD.
 * @typedef {{ state: string, author: string, from: string, to: string, q: string, take: number,
 *   after: string[], range: '24h' | '7d' }} View
 */

const PAGE_SIZES = [10, 25, 50, 100];
const RANGES = /** @type {const} */ ([
  ['24h', '24 hours', 24],
  ['7d', '7 days', 168],
]);
const STATES = [
  ['', 'All states'],
  ['MERGED', 'Merged'],
  ['FAILED', 'Failed'],
  ['CANCELLED', 'Cancelled'],
];
const DAY = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;

/** The view of an address's query (defaults for what it leaves out or cannot be). */
function viewOf(/** @type {string} */ hash) {
  const q = new URLSearchParams(hash.split('?')[1] ?? '');
  const day = (/** @type {string} */ name) => (DAY.test(q.get(name) ?? '') ? (q.get(name) ?? '') : '');
  const take = Number(q.get('take'));
  return /** @type {View} */ ({
    state: q.get('state') ?? '',
    author: q.get('author') ?? '',
    from: day('from'),
    to: day('to'),
    q: q.get('q') ?? '',
    take: PAGE_SIZES.includes(take) ? take : 25,
    after: (q.get('after') ?? '').split('.').filter(Boolean),
    range: q.get('range') === '7d' ? '7d' : '24h',
  });
}

/** The address's query of a view, naming only what differs from the defaults. */
function queryOf(/** @type {View} */ v) {
  const q = new URLSearchParams();
  for (const name of /** @type {const} */ (['state', 'author', 'from', 'to', 'q'])) if (v[name]) q.set(name, v[name]);
  if (v.take !== 25) q.set('take', String(v.take));
  if (v.after.length > 0) q.set('after', v.after.join('.'));
  if (v.range !== '24h') q.set('range', v.range);
  const text = q.toString();
  return text ? `?${text}` : '';
}

const filtered = (/** @type {View} */ v) => Boolean(v.state || v.author || v.from || v.to || v.q);

/** The request of a view: its filters, dates as the start of `from`'s day and the end of `to`'s. */
function requestOf(/** @type {QueueKey} */ key, /** @type {View} */ v) {
  /** @type {ConcludedRequest} */
  const body = { ...key, take: v.take };
  if (v.state) body.states = [v.state];
  if (v.author.trim()) body.author = v.author.trim();
  if (v.from) body.from = new Date(`${v.from}T00:00:00`).toISOString();
  if (v.to) body.to = new Date(`${v.to}T23:59:59.999`).toISOString();
  if (v.q.trim()) body.search = v.q.trim();
  const cursor = v.after.at(-1);
  if (cursor) body.cursor = cursor;
  return body;
}

/** The filters form: edits are applied together with "Apply filters". */
function Filters(
  /** @type {{ view: View, apply: (v: Partial<View>) => void, clear: () => void }} */ { view, apply, clear },
) {
  const [draft, setDraft] = useState(view);
  useEffect(() => setDraft(view), [view]);
  const field = (/** @type {'author' | 'from' | 'to' | 'q' | 'state'} */ name) => ({
    value: draft[name],
    onInput: (/** @type {Event} */ e) =>
      setDraft({ ...draft, [name]: /** @type {HTMLInputElement} */ (e.currentTarget).value }),
  });
  const submit = (/** @type {Event} */ e) => {
    e.preventDefault();
    apply({ state: draft.state, author: draft.author, from: draft.from, to: draft.to, q: draft.q });
  };
  return html`<form class="filters" role="search" aria-label="Filter concluded pull requests" onSubmit=${submit}>
    <div>
      <label for="f-state">State</label>
      <select id="f-state" ...${field('state')} onChange=${field('state').onInput}>
        ${STATES.map(([value, label]) => html`<option value=${value}>${label}</option>`)}
      </select>
    </div>
    <div>
      <label for="f-author">Author</label>
      <input id="f-author" type="text" autocomplete="off" ...${field('author')} />
    </div>
    <div>
      <label for="f-from">Concluded from</label>
      <input id="f-from" type="date" ...${field('from')} />
    </div>
    <div>
      <label for="f-to">Concluded to</label>
      <input id="f-to" type="date" ...${field('to')} />
    </div>
    <div>
      <label for="f-q">Title or number</label>
      <input id="f-q" type="search" placeholder="e.g. login or 42" ...${field('q')} />
    </div>
    <div class="filter-actions">
      <button type="submit">Apply filters</button>
      <button type="button" class="quiet" onClick=${clear} disabled=${!filtered(view)}>Clear filters</button>
    </div>
  </form>`;
}

/** One concluded PR as a table row: the reason in words, its code in the tooltip. */
function Row(/** @type {{ queueKey: QueueKey, pr: ConcludedPr }} */ { queueKey, pr }) {
  const state = pr.state.toUpperCase();
  const r = pr.explanation;
  return html`<tr data-pr=${pr.prNumber} data-state=${state}>
    <th scope="row" data-label="Pull request">
      <a href=${prHref(queueKey, pr.prNumber)}>#${pr.prNumber} ${pr.prTitle}</a>
      <span class="muted block">by ${pr.prAuthor}</span>
    </th>
    <td data-label="State">
      <${Badge} state=${state} />
      ${pr.flaky ? html` <span class="badge state-pending_failure" title="Its tests passed only when run again: flaky CI">FLAKY</span>` : null}
    </td>
    <td data-label="Why">
      <${Reason} reason=${r} />
    </td>
    <td data-label="Concluded"><time datetime=${pr.concludedAt}>${new Date(pr.concludedAt).toLocaleString()}</time></td>
    <td data-label="Time in queue" class="num">${duration(pr.timeInQueueSeconds * 1000)}</td>
    <td data-label="Test run" class="mono small" title=${pr.testRunId ?? undefined}>${pr.testRunId?.slice(0, 8) ?? '–'}</td>
  </tr>`;
}

/** What to do when the table is empty: submit a PR, or clear the filters. */
function Empty(/** @type {{ queueKey: QueueKey, view: View, clear: () => void }} */ { queueKey, view, clear }) {
  if (filtered(view))
    return html`<p class="empty" id="history-empty">
      Nothing matches these filters:${' '}
      <button type="button" class="quiet" onClick=${clear}>Clear them</button> to see every concluded PR.
    </p>`;
  const { host, owner, name } = queueKey.repo;
  // Broken into lines between its parts only, not at the hyphens of its options.
  const command = [
    'greenline pr submit NUMBER',
    `--repo ${host}/${owner}/${name}`,
    `--branch ${queueKey.targetBranch}`,
  ];
  return html`<p class="empty" id="history-empty">
    No PR has concluded yet: submit one with${' '}
    <code class="command">${command.map((part, i) => html`${i > 0 ? ' ' : ''}<span class="keep">${part}</span>`)}</code>${' '}
    and it is listed here once it merges, fails or is cancelled.
  </p>`;
}

/** The history of one queue. */
export function HistoryPage(/** @type {{ queueKey: QueueKey }} */ { queueKey }) {
  const [view, setView] = useState(() => viewOf(location.hash));

  /** Shows `next` and writes it into the address (replacing it: the page keeps one history entry). */
  const show = (/** @type {View} */ next) => {
    setView(next);
    window.history.replaceState(null, '', `${location.hash.split('?')[0]}${queryOf(next)}`);
  };
  const apply = (/** @type {Partial<View>} */ change) => show({ ...view, ...change, after: [] });
  const clear = () => show({ ...view, state: '', author: '', from: '', to: '', q: '', after: [] });

  const list = useCall('listConcludedPullRequests', requestOf(queueKey, view));
  const page = /** @type {ConcludedPage | null} */ (list.data);
  const error = list.error;
  const hours = RANGES.find(([id]) => id === view.range)?.[2] ?? 24;
  const charts = useCall('getQueueHistory', { ...queueKey, hours });
  const hourly = /** @type {QueueHistory | null} */ (charts.data);
  const chartError = charts.error;

  const first = view.after.length * view.take + 1;
  const shown = page?.pullRequests.length ?? 0;
  const title = queueLabel(queueKey);
  usePageTitle(`History of ${title}`);
  return html`<article aria-labelledby="history-title" class="history">
    <div class="page-head">
      <h1 id="history-title">History of ${title}</h1>
      <a href=${queueHref(queueKey)}>Back to the live queue</a>
    </div>
    <section class="card" aria-labelledby="concluded-title" aria-busy=${list.loading ? 'true' : 'false'}>
      <h2 id="concluded-title">Concluded pull requests</h2>
      <${Filters} view=${view} apply=${apply} clear=${clear} />
      ${error ? html`<p class="error" role="alert" id="history-error">${error}</p>` : null}
      <p role="status" class="muted" id="history-count">
        ${
          page === null
            ? error
              ? ''
              : 'Loading…'
            : page.total === 0
              ? ''
              : `Showing ${first}–${first + shown - 1} of ${page.total}${filtered(view) ? ' matching the filters' : ''}, newest first.`
        }
      </p>
      ${page !== null && page.pullRequests.length === 0 ? html`<${Empty} queueKey=${queueKey} view=${view} clear=${clear} />` : null}
      ${
        page !== null && page.pullRequests.length > 0
          ? html`<div class="table-wrap">
              <table class="responsive" id="history-prs">
                <caption class="visually-hidden">Concluded pull requests, newest first</caption>
                <thead>
                  <tr>
                    ${['Pull request', 'State', 'Why', 'Concluded', 'Time in queue', 'Test run'].map(
                      (c) => html`<th scope="col">${c}</th>`,
                    )}
                  </tr>
                </thead>
                <tbody>
                  ${page.pullRequests.map((pr) => html`<${Row} key=${pr.prNumber} queueKey=${queueKey} pr=${pr} />`)}
                </tbody>
              </table>
            </div>`
          : null
      }
      <nav class="pager" aria-label="Pages of concluded pull requests" hidden=${!page?.total}>
        <button type="button" class="quiet" disabled=${view.after.length === 0} onClick=${() => show({ ...view, after: view.after.slice(0, -1) })}>
          ← Newer
        </button>
        <span class="muted">Page ${view.after.length + 1}</span>
        <button
          type="button"
          class="quiet"
          disabled=${!page?.nextCursor}
          onClick=${() => page?.nextCursor && show({ ...view, after: [...view.after, page.nextCursor] })}
        >
          Older →
        </button>
        <label for="f-take" class="inline">Rows per page</label>
        <select id="f-take" value=${String(view.take)} onChange=${(/** @type {Event} */ e) => apply({ take: Number(/** @type {HTMLSelectElement} */ (e.currentTarget).value) })}>
          ${PAGE_SIZES.map((n) => html`<option value=${String(n)}>${n}</option>`)}
        </select>
      </nav>
    </section>
    <section aria-labelledby="charts-title">
      <div class="page-head">
        <h2 id="charts-title">Charts</h2>
        <fieldset class="range">
          <legend>Range</legend>
          ${RANGES.map(
            ([id, label]) => html`<label class="inline">
              <input type="radio" name="range" value=${id} checked=${view.range === id} onChange=${() => show({ ...view, range: id })} />
              ${label}
            </label>`,
          )}
        </fieldset>
      </div>
      ${chartError ? html`<p class="error" role="alert">${chartError}</p>` : null}
      ${hourly ? html`<${HistoryCharts} history=${hourly} />` : chartError ? null : html`<p class="muted">Loading…</p>`}
    </section>
  </article>`;
}
