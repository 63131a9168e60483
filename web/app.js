// @ts-check
// The greenline dashboard: a Preact app of a header (brand, breadcrumbs, sign-out), the sign-in form,
// and the page the address's hash names, looked up in the route table `routes`. Pages are
// components of their address's parts (RouteProps), one module each in pages/.
import { ApiError, call, failed, onSignOut, signOut, token } from './api.js';
import { errorText, Problem, unreachableText, usePageTitle } from './components.js';
import { tickDurations } from './dom.js';
import { queueHref, queueLabel } from './links.js';
import { PrPage } from './pages/pr.js';
import { QueuePage } from './pages/queue.js';
import { HistoryPage } from './pages/history.js';
import { AuditPage } from './pages/audit.js';
import { QueuesPage } from './pages/queues.js';
import { SettingsPage } from './pages/settings.js';
import { html, render, useEffect, useRef, useState } from './ui.js';

/** @typedef {import('./links.js').QueueKey} QueueKey */
/** @typedef {import('preact').ComponentChildren} Children */

/**
 * What a page gets from its address: `queueKey` for `:queue` (host/owner/name/branch), `pr` for `:pr`.
 * @typedef {{ queueKey?: QueueKey, pr?: number }} RouteProps
 */

/**
 * A page of the dashboard: its address after `#/`, of fixed words and the parameters `:queue` (four
 * segments: host, owner, name, branch) and `:pr` (a number); the component that shows it; and, for a
 * page under a queue, its last breadcrumb (without `crumb`, the queue's crumb is the current page).
 * `page` is written as a method so that a page may declare the props its path always gives as
 * required, e.g. `@param {{ queueKey: QueueKey }} props`.
 * @typedef {{ path: string, page(props: RouteProps): Children, crumb?: (props: RouteProps) => string }} Route
 */

/** @param {{ queueKey: QueueKey, pr: number }} props */
const PullRequestPage = ({ queueKey, pr }) => html`<${PrPage} queueKey=${queueKey} prNumber=${pr} />`;

/**
 * The dashboard's pages, by address. Adding a page is one line here (docs/dashboard.md, "Adding a
 * page"); its links are built in links.js.
 * @type {Route[]}
 */
const routes = [
  { path: '', page: QueuesPage },
  { path: 'queue/:queue', page: QueuePage },
  { path: 'pr/:queue/:pr', page: PullRequestPage, crumb: ({ pr }) => `#${pr}` },
  { path: 'settings/:queue', page: SettingsPage, crumb: () => 'Settings' },
  { path: 'history/:queue', page: HistoryPage, crumb: () => 'History' },
  { path: 'audit', page: AuditPage, crumb: () => 'Audit log' },
];

/**
 * The route and its props for a hash such as `#/pr/github.com/acme/web/main/42`; null when no route
 * has that address.
 * @param {string} hash
 * @returns {{ route: Route, props: RouteProps } | null}
 */
function match(hash) {
  let parts;
  try {
    // A page's own state may follow its address after `?` (the history page's filters).
    parts = hash.replace(/^#\/?/, '').split('?')[0].split('/').filter(Boolean).map(decodeURIComponent);
  } catch {
    return null; // a malformed %-escape
  }
  for (const route of routes) {
    /** @type {RouteProps} */
    const props = {};
    let at = 0;
    const fits = route.path
      .split('/')
      .filter(Boolean)
      .every((segment) => {
        if (segment === ':queue') {
          const [host, owner, name, targetBranch] = parts.slice(at, at + 4);
          at += 4;
          if (targetBranch === undefined) return false;
          props.queueKey = { repo: { host, owner, name }, targetBranch };
          return true;
        }
        const part = parts[at++];
        if (segment === ':pr') {
          if (!/^[0-9]+$/.test(part ?? '')) return false;
          props.pr = Number(part);
          return true;
        }
        return part === segment;
      });
    if (fits && at === parts.length) return { route, props };
  }
  return null;
}

/**
 * Queues › owner/name → branch › the page's own crumb; the last one is the current page.
 * @param {{ found: { route: Route, props: RouteProps } | null }} props
 */
function Breadcrumbs({ found }) {
  const queueKey = found?.props.queueKey;
  const last = found?.route.crumb?.(found.props);
  /** @type {[string, string | null][]} label and address (null: the current page) */
  const items = [['Queues', found && !queueKey && last === undefined ? null : '#/']];
  if (queueKey) items.push([queueLabel(queueKey), last === undefined ? null : queueHref(queueKey)]);
  if (last !== undefined) items.push([last, null]);
  return html`<nav id="crumbs" aria-label="Breadcrumb">
    <ol>
      ${items.map(
        ([label, href]) =>
          html`<li>${href === null ? html`<span aria-current="page">${label}</span>` : html`<a href=${href}>${label}</a>`}</li>`,
      )}
    </ol>
  </nav>`;
}

/** @param {{ hash: string }} props What the dashboard shows for an address it has no page for. */
function NotFound({ hash }) {
  usePageTitle('Page not found');
  const addresses = routes.map(
    (route) => `#/${route.path.replace(':queue', 'HOST/OWNER/NAME/BRANCH').replace(':pr', 'NUMBER')}`,
  );
  return html`<${Problem} title="Page not found">
    <p>The dashboard has no page at <code>${hash}</code>. Its addresses are:</p>
    <ul>
      ${addresses.map((address) => html`<li><code>${address}</code></li>`)}
    </ul>
    <p><a href="#/">Go to the list of queues</a></p>
  <//>`;
}

/**
 * The sign-in form. It checks the token with a first API call before showing the pages; `message`
 * says why the user is here again (token refused, signed out).
 * @param {{ message?: { text: string, error: boolean }, onSignedIn: () => void }} props
 */
function SignIn({ message, onSignedIn }) {
  const input = useRef(/** @type {HTMLInputElement | null} */ (null));
  const [problem, setProblem] = useState(/** @type {string | null} */ (null));
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    document.title = 'Sign in · greenline';
    input.current?.focus();
  }, []);
  const shown = problem === null ? message : { text: problem, error: true };

  /** @param {SubmitEvent} event */
  async function submit(event) {
    event.preventDefault();
    const value = input.current?.value.trim();
    if (!value) return;
    token.set(value);
    setBusy(true);
    try {
      await call('listQueues');
      onSignedIn();
    } catch (err) {
      setBusy(false);
      input.current?.focus();
      if (failed(err)) return setProblem(null); // the app passes the message that says why
      token.clear();
      setProblem(err instanceof ApiError && err.status === 0 ? unreachableText(err.message) : errorText(err));
    }
  }

  return html`<form class="card sign-in" onSubmit=${submit}>
    <h1>Sign in</h1>
    ${
      shown
        ? html`<p id="sign-in-message" class=${shown.error ? 'error' : 'notice'} role=${shown.error ? 'alert' : 'status'}>
            ${shown.text}
          </p>`
        : null
    }
    <label for="token">API token</label>
    <input
      ref=${input}
      id="token"
      name="token"
      type="password"
      autocomplete="current-password"
      required
      aria-describedby=${`token-help${shown ? ' sign-in-message' : ''}`}
    />
    <p id="token-help" class="muted">
      An API token of your organization: the one greenline serve printed on its first start, or a new
      one from <code>greenline token create --org ORG</code>. It is kept in this tab only
      (sessionStorage) and sent in the x-api-token header.
    </p>
    <button type="submit" disabled=${busy}>${busy ? 'Signing in…' : 'Sign in'}</button>
  </form>`;
}

/** The whole dashboard: header, then the sign-in form or the page of the address. */
function App() {
  const [signedIn, setSignedIn] = useState(() => token.get() !== null);
  const [message, setMessage] = useState(/** @type {{ text: string, error: boolean } | undefined} */ (undefined));
  const [hash, setHash] = useState(location.hash);
  const main = useRef(/** @type {HTMLElement | null} */ (null));

  useEffect(
    () =>
      onSignOut((text, error) => {
        setMessage({ text, error });
        setSignedIn(false);
      }),
    [],
  );
  useEffect(() => {
    const changed = () => setHash(location.hash);
    window.addEventListener('hashchange', changed);
    return () => window.removeEventListener('hashchange', changed);
  }, []);
  useEffect(() => {
    const timer = setInterval(() => tickDurations(), 1000);
    return () => clearInterval(timer);
  }, []);
  // Each navigation moves the focus to the content, as a new page would.
  useEffect(() => {
    if (signedIn) main.current?.focus({ preventScroll: true });
  }, [hash, signedIn]);

  const found = match(hash);
  /** @param {MouseEvent} event */
  const skip = (event) => {
    event.preventDefault();
    main.current?.focus();
  };
  return html`<a class="skip-link" href="#main" onClick=${skip}>Skip to content</a>
    <header class="top">
      <a class="brand" href="#/">greenline</a>
      ${signedIn ? html`<${Breadcrumbs} found=${found} />` : null}
      ${
        signedIn
          ? html`<button type="button" class="quiet" onClick=${() => signOut('Signed out.', false)}>Sign out</button>`
          : null
      }
    </header>
    <main id="main" tabindex="-1" ref=${main}>
      ${
        !signedIn
          ? html`<${SignIn} message=${message} onSignedIn=${() => setSignedIn(true)} />`
          : found
            ? html`<${found.route.page} key=${hash} ...${found.props} />`
            : html`<${NotFound} key=${hash} hash=${hash} />`
      }
    </main>`;
}

const root = /** @type {HTMLElement} */ (document.getElementById('app'));
root.replaceChildren();
render(html`<${App} />`, root);
