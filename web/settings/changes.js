// @ts-check
// The settings form's values and what saving them sends: each setting's value as the form holds it, the
// updateQueue fields that change the queue to what the form says, "Saved: concurrency 3 → 5" once it
// did, and the setting a refusal names. No Preact, no DOM.
import { settingOf } from './schema.js';

/** @typedef {import('../../src/client/index.js').QueueSettings} QueueSettings */
/** @typedef {import('./schema.js').Kind} Kind */
/** @typedef {{ auto: boolean, minutes: string }} TimeoutValue */
/** @typedef {{ override: boolean, items: string[] }} ListValue */
/** What a field of the form holds. @typedef {string | boolean | TimeoutValue | ListValue} FormValue */

/**
 * The form's value of a setting; `inForce` is the testing timeout in force (getQueueActivity's), the
 * number shown while the timeout is "auto".
 * @param {Kind} kind @param {unknown} value @param {number} inForce @returns {FormValue}
 */
export function formValue(kind, value, inForce) {
  if (kind === 'checkbox') return value === true;
  if (kind === 'timeout')
    return value === 'auto' ? { auto: true, minutes: String(inForce) } : { auto: false, minutes: String(value ?? '') };
  if (kind === 'list')
    return Array.isArray(value) ? { override: true, items: [...value] } : { override: false, items: [] };
  if (kind === 'json') return value === undefined || value === null ? '' : JSON.stringify(value, null, 2);
  return value === undefined || value === null ? '' : String(value);
}

/**
 * A setting's value in words, for "Saved: concurrency 3 → 5"; null is the required statuses' "not set"
 * unless `name` says another setting's.
 * @param {unknown} value @param {string} [name]
 */
export function valueWords(value, name) {
  if (value === undefined) return 'not set';
  if (value === null) return name === 'impactedTargetsFromPaths' ? 'off' : "the repository's checks";
  if (typeof value === 'object' && !Array.isArray(value)) return JSON.stringify(value);
  if (value === true) return 'on';
  if (value === false) return 'off';
  if (Array.isArray(value)) return value.length === 0 ? 'none required' : value.join(', ');
  return String(value);
}

/** JSON text as its value, '' as null, and text that is not JSON as itself. @param {string} text */
function jsonOr(text) {
  if (text.trim() === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

const sameList = (/** @type {unknown} */ a, /** @type {string[]} */ b) =>
  Array.isArray(a) && a.length === b.length && a.every((v, i) => v === b[i]);

/**
 * The updateQueue fields that change a setting from `value` (getQueue's) to the form's `form`; {} when
 * it does not change. The server judges the values: an empty number is sent as null, which it refuses.
 * @param {string} name @param {Kind} kind @param {FormValue} form @param {unknown} value
 * @returns {Record<string, unknown>}
 */
export function changeOf(name, kind, form, value) {
  if (kind === 'timeout') {
    const t = /** @type {TimeoutValue} */ (form);
    if (t.auto) return value === 'auto' ? {} : { [name]: 'auto' };
    const minutes = t.minutes.trim() === '' ? null : Number(t.minutes);
    return value !== 'auto' && minutes === value ? {} : { [name]: minutes };
  }
  if (kind === 'list') {
    const l = /** @type {ListValue} */ (form);
    if (!l.override) return value === null || value === undefined ? {} : { deleteRequiredStatuses: true };
    const items = l.items.map((s) => s.trim()).filter((s) => s !== '');
    return sameList(value, items) ? {} : { [name]: items };
  }
  if (kind === 'checkbox') return form === value ? {} : { [name]: form };
  const text = /** @type {string} */ (form);
  if (kind === 'number') {
    if (text.trim() === '') return value === undefined ? {} : { [name]: null };
    return Number(text) === value ? {} : { [name]: Number(text) };
  }
  if (kind === 'json') {
    // Empty: null (off). Text that is not JSON is sent as it is: the server's 400 says the shape it expects.
    const parsed = jsonOr(text);
    return JSON.stringify(parsed) === JSON.stringify(value ?? null) ? {} : { [name]: parsed };
  }
  if (kind === 'select') return text.toLowerCase() === String(value).toLowerCase() ? {} : { [name]: text };
  return text === value ? {} : { [name]: text };
}

/**
 * What saving the form sends: the updateQueue fields of every setting of `names` the form changes from
 * the queue `q`, and those settings' names.
 * @param {string[]} names
 * @param {(name: string) => Kind} kind
 * @param {(name: string) => FormValue} shown the form's value of a setting
 * @param {QueueSettings} q
 */
export function changesOf(names, kind, shown, q) {
  /** @type {Record<string, unknown>} */
  const body = {};
  for (const name of names) Object.assign(body, changeOf(name, kind(name), shown(name), settingOf(q, name)));
  const changed = names.filter(
    (name) => name in body || (name === 'requiredStatuses' && 'deleteRequiredStatuses' in body),
  );
  return { body, changed };
}

/**
 * "Saved: concurrency 3 → 5; ciRetries 0 → 2.": each changed setting before and after.
 * @param {string[]} changed @param {QueueSettings} before @param {QueueSettings} after
 */
export const savedText = (changed, before, after) =>
  `Saved: ${changed.map((name) => `${name} ${valueWords(settingOf(before, name), name)} → ${valueWords(settingOf(after, name), name)}`).join('; ')}.`;

/** The name of `names` a server message names first ("body/ciRetries must be …"), or null. @param {string} message @param {string[]} names */
function fieldNamed(message, names) {
  let found = null;
  let at = Infinity;
  for (const name of names) {
    const i = message.search(new RegExp(`\\b${name}\\b`));
    if (i >= 0 && i < at) [found, at] = [name, i];
  }
  return found;
}

/**
 * The setting of `names` a refusal of the form's save names, or null: deleteRequiredStatuses is the
 * requiredStatuses field.
 * @param {string} message @param {string[]} names
 */
export function refusedSetting(message, names) {
  const field = fieldNamed(message, [...names, 'deleteRequiredStatuses']);
  return field === 'deleteRequiredStatuses' ? 'requiredStatuses' : field;
}

/**
 * A refusal as the form shows it beside its field, in words: without the API's "Invalid request:"
 * and the validator's path to the field ("body/concurrency must be an integer from 1 to 1000, got 0"
 * → "Must be an integer from 1 to 1000, got 0.").
 * @param {string} message @param {string} field
 */
export function refusalWords(message, field) {
  const text = message
    .replace(/^Invalid request:\s*/, '')
    .replace(new RegExp(`^(?:body/)?${field}\\s+`), '')
    .trim();
  // A setting's name (deleteRequiredStatuses) keeps its spelling; a word starts the sentence in capitals.
  const first = text.split(/\s/)[0] ?? '';
  const sentence = first === first.toLowerCase() ? text.charAt(0).toUpperCase() + text.slice(1) : text;
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}
