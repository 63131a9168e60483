// @ts-check
// Actions on the server, each after a confirmation, with the outcome in words.
import { ApiError, failed } from './api.js';
import { announce, confirmDialog } from './dom.js';

/** The outcome of an action, in words; `code`: the API's error code, for the tooltip. */
/** @typedef {{ ok: boolean, text: string, code?: string }} Outcome */

/**
 * What an error says: the API's message (its code is for the tooltip, see `code`).
 * @param {unknown} err
 */
export const errorMessage = (err) => (err instanceof ApiError || err instanceof Error ? err.message : String(err));

/**
 * Asks for confirmation in the dialog, then runs `action`; resolves to its outcome in words, spoken to
 * screen readers too (null when not confirmed, or when the token was refused and the sign-in form shows).
 * @param {{ title: string, text: string, action: string }} dialog
 * @param {() => Promise<unknown>} action
 * @param {string} [doneText] what is said when it worked (default: "<action>: done.")
 * @returns {Promise<Outcome | null>}
 */
export async function confirmThen(dialog, action, doneText) {
  if (!(await confirmDialog(dialog))) return null;
  /** @type {Outcome} */
  let outcome;
  try {
    await action();
    outcome = { ok: true, text: doneText ?? `${dialog.action}: done.` };
  } catch (err) {
    if (failed(err)) return null;
    outcome = {
      ok: false,
      text: `${dialog.action} failed: ${errorMessage(err)}`,
      ...(err instanceof ApiError ? { code: err.code } : {}),
    };
  }
  announce(outcome.text);
  return outcome;
}
