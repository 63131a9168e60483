// @ts-check
// Small components the pages share: the page title, loading and problem notices. Badge, Since and
// Until live in dom.js beside their plain DOM twins (one implementation for both).
import { ApiError, call, failed } from './api.js';
import { announce } from './dom.js';
import { html, useEffect, useState } from './ui.js';
import { Why } from './words.js';

export { Badge, Since, Until } from './dom.js';
export { ExternalLink } from './words.js';

/**
 * Why something is as it is, as the API words it (words.js Why): the sentence, its code in the
 * tooltip, its specifics after it.
 * @param {{ reason: { code: string, message: string, detail?: string | null }, class?: string }} props
 */
export const Reason = ({ reason, class: cls }) =>
  html`<${Why} code=${reason.code} message=${reason.message} detail=${reason.detail} class=${cls} />`;

/** @typedef {import('preact').ComponentChildren} Children */

/**
 * Sets the tab's title to "<title> · greenline" and tells screen readers the page loaded; does
 * nothing while `title` is null (the page is still loading).
 * @param {string | null} title
 */
export function usePageTitle(title) {
  useEffect(() => {
    if (title === null) return;
    document.title = `${title} · greenline`;
    announce(`${title} loaded`);
  }, [title]);
}

/** @param {{ children?: Children }} props "Loading…", or what is loading. */
export const Loading = ({ children = 'Loading…' }) => html`<p class="notice" role="status">${children}</p>`;

/**
 * "CODE: message" of an API error, else the error's text.
 * @param {unknown} err
 */
export const errorText = (err) => (err instanceof ApiError ? `${err.code}: ${err.message}` : String(err));

/**
 * What the user can do when the API cannot be reached.
 * @param {string} message
 */
export const unreachableText = (message) =>
  `${message}. Check that greenline serve is running and that ${location.origin} reaches it (a proxy or firewall may block ${location.origin}/v1/), then try again.`;

/**
 * A page that could not be shown: its heading, what happened and what to do.
 * @param {{ title: string, children?: Children }} props
 */
export const Problem = ({ title, children }) =>
  html`<section class="card problem" aria-labelledby="problem-title">
    <h1 id="problem-title">${title}</h1>
    ${children}
  </section>`;

/**
 * An API call that failed (other than a refused token, which signs out): what happened and what to
 * do, with Try again when `retry` is given, and a way back to the queues unless `home` is false (on
 * the queues page itself).
 * @param {{ error: unknown, retry?: () => void, home?: boolean }} props
 */
export function ApiProblem({ error, retry, home = true }) {
  const status = error instanceof ApiError ? error.status : undefined;
  const unreachable = status === 0;
  const title = unreachable
    ? 'The greenline server cannot be reached'
    : status === 404
      ? 'Not found'
      : 'Something went wrong';
  return html`<${Problem} title=${title}>
    <p class="error" role="alert">${unreachable ? unreachableText(/** @type {ApiError} */ (error).message) : errorText(error)}</p>
    <p class="card-actions">
      ${retry ? html`<button type="button" onClick=${retry}>Try again</button>` : null}
      ${home ? html`<a href="#/">Back to the queues</a>` : null}
    </p>
  <//>`;
}

/**
 * The answer of POST /v1/<endpoint> with `body`, asked again whenever `body` changes: the last
 * answer (null before the first, or after an error), the error in words, and whether a call is out.
 * @template {import('./api.js').Endpoint} E
 * @param {E} endpoint
 * @param {Parameters<import('../src/client/index.js').GreenlineClient[E]>[0]} body
 */
export function useCall(endpoint, body) {
  const [answer, setAnswer] = useState({ data: /** @type {unknown} */ (null), error: '', loading: true });
  const key = JSON.stringify(body);
  useEffect(() => {
    let live = true;
    setAnswer((a) => ({ ...a, loading: true }));
    call(endpoint, body).then(
      (/** @type {unknown} */ data) => {
        if (live) setAnswer({ data, error: '', loading: false });
      },
      (/** @type {unknown} */ err) => {
        if (live && !failed(err)) setAnswer({ data: null, error: errorText(err), loading: false });
      },
    );
    return () => {
      live = false;
    };
  }, [endpoint, key]);
  return answer;
}
