// @ts-check
// What the settings page's sections share: a change sent after a confirmation (`Run`), its outcome line,
// and keeping the keyboard focus in a section whose button an action removed.
import { html, useEffect, useRef } from '../ui.js';

/** @typedef {import('../../src/client/index.js').QueueSettings} QueueSettings */
/** @typedef {import('../../src/client/index.js').UpdateQueueRequest} UpdateQueueRequest */
/** A result line: what an action did, or why it failed, in words. @typedef {{ ok: boolean, text: string }} Outcome */
/**
 * Sends a change to updateQueue after the confirmation `dialog`; resolves to the outcome in words
 * (`done` words the answer), or null when cancelled.
 * @typedef {(dialog: { title: string, text: string, action: string }, body: Partial<UpdateQueueRequest>,
 *   done: (after: QueueSettings) => string) => Promise<Outcome | null>} Run
 */

/** @param {{ outcome: Outcome | null, id: string }} props */
export function OutcomeLine({ outcome, id }) {
  return html`<p id=${id} class=${outcome ? (outcome.ok ? 'outcome notice' : 'outcome error') : 'outcome'} role="status">
    ${outcome?.text ?? ''}
  </p>`;
}

/**
 * Keeps keyboard focus in `ref` when an action removes the control that had it (Pause once paused,
 * Unfreeze once unfrozen): after `key` changed, focus goes to the first control left. Returns the flag
 * an action sets.
 * @param {{ current: HTMLElement | null }} ref @param {unknown} key
 */
export function useFocusKept(ref, key) {
  const acted = useRef(false);
  useEffect(() => {
    if (acted.current && (document.activeElement === null || document.activeElement === document.body))
      /** @type {HTMLElement | null | undefined} */ (ref.current?.querySelector('button, input'))?.focus();
    acted.current = false;
  }, [key]);
  return acted;
}
