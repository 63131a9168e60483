// @ts-check
// Codes in words, for every page: a state, status or kind code (PENDING_FAILURE, in_progress,
// bisection) reads as words ("Pending failure") with the code kept in the tooltip; a reason reads as
// the server's sentence (explanation.message, timeline message) with its code in the tooltip.
import { html } from './ui.js';

/**
 * `PENDING_FAILURE` → "Pending failure", `in_progress` → "In progress": the code, spelt as words.
 * @param {string} code
 */
export function words(code) {
  const text = String(code).replace(/_/g, ' ').toLowerCase();
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/** The CSS classes of a state's badge: `badge state-pending_failure`. */
export const stateClass = (/** @type {string} */ code) => `badge state-${String(code).toLowerCase()}`;

/**
 * A state (or status) badge: its words, coloured by state (the words, not the colour, carry the
 * meaning), the code in the tooltip and in data-code.
 * @param {{ state: string, title?: string }} props
 */
export function StateBadge({ state, title }) {
  const code = String(state).toUpperCase();
  return html`<span class=${stateClass(state)} title=${title ?? code} data-code=${code}>${words(state)}</span>`;
}

/**
 * Why something is so, as the API words it: the sentence, its code in the tooltip, and its specifics
 * (failed status, conflicting files, who cancelled) after it.
 * @param {{ code: string, message: string, detail?: string | null, class?: string }} props
 */
export function Why({ code, message, detail, class: cls = 'why' }) {
  return html`<span class=${cls} title=${code} data-code=${code}
    >${message}${detail ? html`<span class="detail-inline"> ${detail}</span>` : null}</span
  >`;
}

/** Whether `url` may be linked: http or https only (an address CI reported is not trusted). */
export const linkable = (/** @type {unknown} */ url) => typeof url === 'string' && /^https?:\/\//i.test(url);

/**
 * A link to a page elsewhere (the forge, CI), opened in a new tab; nothing when the address is unknown
 * or not http(s): no link rather than a broken one.
 * @param {{ url: string | null | undefined, children: any, label?: string, class?: string }} props
 */
export function ExternalLink({ url, children, label, class: cls }) {
  if (!linkable(url)) return null;
  return html`<a href=${url} class=${cls} rel="noopener noreferrer" target="_blank" aria-label=${label}>${children}</a>`;
}
