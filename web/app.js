// The greenline dashboard: a hash router over three pages (queues, one queue, one pull request) and
// the sign-in form. Pages: views.js; API access: api.js.
import { ApiError, token } from './api.js';
import { announce, fill, h, tickDurations } from './dom.js';
import { queueHref } from './links.js';
import { HistoryPage } from './pages/history.js';
import { html, render } from './ui.js';
import { prPage, queuePage, queuesPage } from './views.js';

const main = document.getElementById('main');
const crumbs = document.getElementById('crumbs');
const signOut = document.getElementById('sign-out');

/** What the current page must stop when the user leaves it (its live stream, its timers). */
let leave = () => {};

function signInPage(message) {
  const input = h('input', {
    id: 'token',
    name: 'token',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
    'aria-describedby': `token-help${message ? ' sign-in-error' : ''}`,
  });
  const form = h(
    'form',
    {
      class: 'card sign-in',
      onsubmit: (event) => {
        event.preventDefault();
        const value = input.value.trim();
        if (!value) return;
        token.set(value);
        route();
      },
    },
    h('h1', {}, 'Sign in'),
    message ? h('p', { id: 'sign-in-error', class: 'error', role: 'alert' }, message) : null,
    h('label', { for: 'token' }, 'API token'),
    input,
    h(
      'p',
      { id: 'token-help', class: 'muted' },
      'An API token of your organization (greenline token create --org <org>). ',
      'It is kept in this tab only (sessionStorage) and sent in the x-api-token header.',
    ),
    h('button', { type: 'submit' }, 'Sign in'),
  );
  fill(crumbs);
  signOut.hidden = true;
  fill(main, form);
  input.focus();
}

/**
 * Parses the hash: #/, #/queue/<host>/<owner>/<name>/<branch>, #/pr/<host>/<owner>/<name>/<branch>/<n>,
 * #/history/<host>/<owner>/<name>/<branch>?<filters> (the page reads its query itself).
 */
function parse(hash) {
  const parts = hash.replace(/^#\/?/, '').split('?')[0].split('/').filter(Boolean).map(decodeURIComponent);
  const [page, host, owner, name, branch, pr] = parts;
  if ((page === 'queue' || page === 'pr' || page === 'history') && host && owner && name && branch) {
    const key = { repo: { host, owner, name }, targetBranch: branch };
    if (page === 'queue' || page === 'history') return { page, key };
    if (/^[0-9]+$/.test(pr ?? '')) return { page, key, pr: Number(pr) };
  }
  return { page: 'queues' };
}

function breadcrumbs(where) {
  const items = [h('a', { href: '#/' }, 'Queues')];
  if (where.key) {
    const label = `${where.key.repo.owner}/${where.key.repo.name} → ${where.key.targetBranch}`;
    items.push(
      where.page === 'queue'
        ? h('span', { 'aria-current': 'page' }, label)
        : h('a', { href: queueHref(where.key) }, label),
    );
  }
  if (where.pr) items.push(h('span', { 'aria-current': 'page' }, `#${where.pr}`));
  if (where.page === 'history') items.push(h('span', { 'aria-current': 'page' }, 'History'));
  fill(
    crumbs,
    h(
      'ol',
      {},
      items.map((item) => h('li', {}, item)),
    ),
  );
}

/** Any call that finds the token refused sends the user back to sign in, saying why. */
export function failed(err) {
  if (err instanceof ApiError && err.status === 401) {
    token.clear();
    leave();
    leave = () => {};
    signInPage(
      `The API token was refused (${err.code}): ${err.message}. Check that you copied the whole token and that it was not revoked.`,
    );
    return true;
  }
  return false;
}

async function route() {
  leave();
  leave = () => {};
  if (!token.get()) return signInPage();
  signOut.hidden = false;
  const where = parse(location.hash);
  breadcrumbs(where);
  fill(main, h('p', { class: 'notice', role: 'status' }, 'Loading…'));
  if (where.page === 'history') {
    fill(main);
    render(html`<${HistoryPage} queueKey=${where.key} />`, main);
    leave = () => render(null, main);
    document.title = `History of ${where.key.repo.owner}/${where.key.repo.name} → ${where.key.targetBranch} · greenline`;
    announce(`History of ${where.key.repo.owner}/${where.key.repo.name} loaded`);
    main.focus({ preventScroll: true });
    return;
  }
  try {
    const page =
      where.page === 'queue' ? queuePage(where.key) : where.page === 'pr' ? prPage(where.key, where.pr) : queuesPage();
    const shown = await page;
    leave = shown.leave ?? (() => {});
    fill(main, shown.el);
    document.title = `${shown.title} · greenline`;
    announce(`${shown.title} loaded`);
    main.focus({ preventScroll: true });
  } catch (err) {
    if (failed(err)) return;
    fill(
      main,
      h(
        'div',
        { class: 'card' },
        h('h1', {}, 'Something went wrong'),
        h(
          'p',
          { class: 'error', role: 'alert' },
          err instanceof ApiError ? `${err.code}: ${err.message}` : String(err),
        ),
        h('p', {}, h('a', { href: '#/' }, 'Back to the queues')),
      ),
    );
  }
}

signOut.addEventListener('click', () => {
  token.clear();
  leave();
  leave = () => {};
  signInPage('Signed out.');
});
window.addEventListener('hashchange', route);
setInterval(() => tickDurations(main), 1000);
route();
