// @ts-check
// Small Preact parts the pages share: a state badge, a reason in words, times relative to now, and a
// link to the forge.
import { duration, time } from './dom.js';
import { html } from './ui.js';

/** A state badge, coloured by state (text, not colour alone, carries the meaning). @param {{ state: string }} props */
export function Badge({ state }) {
  const s = String(state);
  return html`<span class=${`badge state-${s.toLowerCase()}`}>${s.toUpperCase()}</span>`;
}

/**
 * Why something is as it is, as the API words it: the sentence, its code in the tooltip (and in
 * data-code), its specifics after it.
 * @param {{ reason: { code: string, message: string, detail?: string }, class?: string }} props
 */
export function Reason({ reason, class: cls = 'why' }) {
  return html`<span class=${cls} title=${reason.code} data-code=${reason.code}
    >${reason.message}${reason.detail ? html`<span class="detail-inline"> ${reason.detail}</span>` : null}</span
  >`;
}

/** How long ago `at` was, as of `now` (ms); the time itself in the tooltip. @param {{ at: string, now: number }} props */
export function Ago({ at, now }) {
  return html`<time datetime=${at} title=${time(at)}>${duration(now - Date.parse(at))}</time>`;
}

/** How long until `at` ("in 4 min 05 s", "now" once past), as of `now` (ms). @param {{ at: string, now: number }} props */
export function Until({ at, now }) {
  const ms = Date.parse(at) - now;
  return html`<time datetime=${at} title=${time(at)}>${ms <= 0 ? 'now' : `in ${duration(ms)}`}</time>`;
}

/**
 * A link to a page on the forge (or another site the API named), opened in a new tab; plain text when
 * the address is unknown or not http(s) (an address from outside is not trusted).
 * @param {{ href: string | null | undefined, label?: string, children: any, class?: string }} props
 */
export function ExternalLink({ href, label, children, class: cls }) {
  if (!href || !/^https?:\/\//i.test(href)) return html`<span class=${cls}>${children}</span>`;
  return html`<a href=${href} class=${cls} aria-label=${label} rel="noopener noreferrer" target="_blank"
    >${children}</a
  >`;
}
