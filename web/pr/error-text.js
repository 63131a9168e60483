// @ts-check
// An error answer in words on the pull request page, its code in the tooltip.
import { errorMessage } from '../actions.js';
import { ApiError } from '../api.js';
import { html } from '../ui.js';

/**
 * An error answer in words, its code in the tooltip.
 * @param {{ error: unknown, prefix?: string }} props
 */
export function ErrorText({ error, prefix = '' }) {
  return html`<p class="error" title=${error instanceof ApiError ? error.code : undefined}>
    ${prefix}${errorMessage(error)}
  </p>`;
}
