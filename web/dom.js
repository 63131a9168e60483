// Small DOM helpers: elements from data (never from HTML strings), times, and the confirmation dialog.
import { stateClass, words } from './words.js';

/** h('a', { href: '#/' }, 'text', child…): attributes starting with "on" become listeners. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on')) el.addEventListener(key.slice(2), value);
    else if (key === 'class') el.className = value;
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
}

const SVG_NS = 'http://www.w3.org/2000/svg';

/** An SVG element with attributes and children. */
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs))
    if (value !== undefined && value !== null) el.setAttribute(key, String(value));
  append(el, children);
  return el;
}

/** Replaces the children of `el`. */
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** "3 s", "4 min 05 s", "2 h 10 min". */
export function duration(ms) {
  const sec = Math.max(0, Math.round(ms / 1000));
  if (sec < 60) return `${sec} s`;
  const min = Math.floor(sec / 60);
  if (min < 60) return `${min} min ${String(sec % 60).padStart(2, '0')} s`;
  return `${Math.floor(min / 60)} h ${String(min % 60).padStart(2, '0')} min`;
}

export const time = (iso) => new Date(iso).toLocaleString();

/** A <time> that shows how long ago `iso` was, kept current by tickDurations(). */
export const since = (iso) =>
  h('time', { datetime: iso, 'data-since': iso, title: time(iso) }, duration(Date.now() - Date.parse(iso)));

/** A <time> that shows how long until `iso` ("in 4 min 05 s", "now" once past), kept current by tickDurations(). */
export const until = (iso) => h('time', { datetime: iso, 'data-until': iso, title: time(iso) }, untilText(iso));

/** "in 4 min 05 s", or "now" once `iso` is past. */
export const untilText = (iso) => {
  const ms = Date.parse(iso) - Date.now();
  return ms <= 0 ? 'now' : `in ${duration(ms)}`;
};

export function tickDurations(root = document) {
  for (const el of root.querySelectorAll('[data-since]'))
    el.textContent = duration(Date.now() - Date.parse(el.dataset.since));
  for (const el of root.querySelectorAll('[data-until]')) el.textContent = untilText(el.dataset.until);
}

/** A state badge (words.js StateBadge, for pages built with h()): its words, coloured by state, the code in the tooltip. */
export const badge = (state) =>
  h(
    'span',
    { class: stateClass(state), title: String(state).toUpperCase(), 'data-code': String(state).toUpperCase() },
    words(state),
  );

/** Speaks `text` to screen readers through the polite live region. */
export function announce(text) {
  const region = document.getElementById('announcer');
  region.textContent = '';
  setTimeout(() => {
    region.textContent = text;
  }, 50);
}

/**
 * Asks for confirmation in the modal dialog; resolves true when confirmed. The dialog traps focus
 * (showModal), starts on Cancel, closes on Escape, and gives focus back to what opened it — or, when
 * a live refresh replaced that element meanwhile, to its replacement (the same data-focus-key).
 */
export function confirmDialog({ title, text, action }) {
  const dialog = document.getElementById('confirm');
  const opener = document.activeElement;
  const openerKey = opener instanceof HTMLElement ? opener.dataset.focusKey : undefined;
  document.getElementById('confirm-title').textContent = title;
  document.getElementById('confirm-text').textContent = text;
  document.getElementById('confirm-ok').textContent = action;
  dialog.returnValue = 'cancel';
  dialog.showModal();
  dialog.querySelector('button[value="cancel"]').focus();
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
