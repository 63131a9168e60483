// @ts-check
// Small helpers of the dashboard: times as words (Since, Until, kept current by tickDurations), the
// state badge, the live region and the confirmation dialog.
import { html } from './ui.js';
import { StateBadge } from './words.js';

/**
 * "3 s", "4 min 05 s", "2 h 10 min".
 * @param {number} ms
 */
export function duration(ms) {
  const sec = Math.max(0, Math.round(ms / 1000));
  if (sec < 60) return `${sec} s`;
  const min = Math.floor(sec / 60);
  if (min < 60) return `${min} min ${String(sec % 60).padStart(2, '0')} s`;
  return `${Math.floor(min / 60)} h ${String(min % 60).padStart(2, '0')} min`;
}

/**
 * The date and time of `iso` in the reader's locale.
 * @param {string} iso
 */
export const time = (iso) => new Date(iso).toLocaleString();

/** @param {string} iso How long ago `iso` was. */
const sinceText = (iso) => duration(Date.now() - Date.parse(iso));

/** @param {string} iso "in 4 min 05 s", or "now" once `iso` is past. */
const untilText = (iso) => {
  const ms = Date.parse(iso) - Date.now();
  return ms <= 0 ? 'now' : `in ${duration(ms)}`;
};

/**
 * A <time> that shows how long ago `iso` was, kept current by tickDurations().
 * @param {{ iso: string }} props
 */
export const Since = ({ iso }) =>
  html`<time datetime=${iso} data-since=${iso} title=${time(iso)}>${sinceText(iso)}</time>`;

/**
 * A <time> that shows how long until `iso` ("in 4 min 05 s", "now" once past), kept current by tickDurations().
 * @param {{ iso: string }} props
 */
export const Until = ({ iso }) =>
  html`<time datetime=${iso} data-until=${iso} title=${time(iso)}>${untilText(iso)}</time>`;

/**
 * Brings every Since and Until under `root` up to date (the dashboard calls it every second).
 * @param {ParentNode} [root]
 */
export function tickDurations(root = document) {
  for (const el of root.querySelectorAll('[data-since]'))
    el.textContent = sinceText(/** @type {HTMLElement} */ (el).dataset.since ?? '');
  for (const el of root.querySelectorAll('[data-until]'))
    el.textContent = untilText(/** @type {HTMLElement} */ (el).dataset.until ?? '');
}

/**
 * A state badge: its words, coloured by state (the words, not the colour, carry the meaning), the code
 * in the tooltip (words.js StateBadge).
 */
export const Badge = StateBadge;

/**
 * Speaks `text` to screen readers through the polite live region.
 * @param {string} text
 */
export function announce(text) {
  const region = /** @type {HTMLElement} */ (document.getElementById('announcer'));
  region.textContent = '';
  setTimeout(() => {
    region.textContent = text;
  }, 50);
}

/** @param {string} id An element of index.html. */
const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/**
 * Asks for confirmation in the modal dialog; resolves true when confirmed. The dialog traps focus
 * (showModal), starts on Cancel, closes on Escape, and gives focus back to what opened it — or, when
 * a live refresh replaced that element meanwhile, to its replacement (the same data-focus-key).
 * @param {{ title: string, text: string, action: string }} question
 * @returns {Promise<boolean>}
 */
export function confirmDialog({ title, text, action }) {
  const dialog = /** @type {HTMLDialogElement} */ (byId('confirm'));
  const opener = document.activeElement;
  const openerKey = opener instanceof HTMLElement ? opener.dataset.focusKey : undefined;
  byId('confirm-title').textContent = title;
  byId('confirm-text').textContent = text;
  byId('confirm-ok').textContent = action;
  dialog.returnValue = 'cancel';
  dialog.showModal();
  /** @type {HTMLButtonElement} */ (dialog.querySelector('button[value="cancel"]')).focus();
  return new Promise((resolve) => {
    dialog.addEventListener(
      'close',
      () => {
        const back =
          opener instanceof HTMLElement && opener.isConnected
            ? opener
            : openerKey
              ? document.querySelector(`[data-focus-key="${CSS.escape(openerKey)}"]`)
              : null;
        if (back instanceof HTMLElement) back.focus();
        resolve(dialog.returnValue === 'ok');
      },
      { once: true },
    );
  });
}
