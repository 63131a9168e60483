// @ts-check
// The settings form's fields, one per setting, built from its schema: its name, the input of its kind
// (number, text, select, checkbox, the testing timeout's minutes or auto, the required statuses' list),
// its meaning and hint, and the server's refusal when it named it.
import { html } from '../ui.js';
import { valueWords } from './changes.js';
import { hintOf, sentence, typesOf, UNBOUNDED } from './schema.js';

/** @typedef {import('../../src/client/index.js').QueueActivity} QueueActivity */
/** @typedef {import('../../src/client/index.js').QueueSettings} QueueSettings */
/** @typedef {import('./schema.js').Group} Group */
/** @typedef {import('./schema.js').Schemas} Schemas */
/** @typedef {import('./schema.js').Schema} Schema */
/** @typedef {import('./schema.js').Kind} Kind */
/** @typedef {import('./changes.js').FormValue} FormValue */
/** @typedef {import('./changes.js').TimeoutValue} TimeoutValue */
/** @typedef {import('./changes.js').ListValue} ListValue */

/**
 * A setting's name with a line break allowed before each word inside it ("required|Status|Start…"),
 * so that a narrow column breaks it between its words, never inside one.
 * @param {string} name
 */
const nameWithBreaks = (name) => name.split(/(?=[A-Z])/).map((word, i) => (i === 0 ? word : html`<wbr />${word}`));

/**
 * One setting: its name, its input, its meaning and hint, and the server's refusal when it named it.
 * @param {{ name: string, schema: Schema, kind: Kind, value: FormValue, onChange: (v: FormValue) => void,
 *   error: string | null, activity: QueueActivity }} props
 */
function Setting({ name, schema, kind, value, onChange, error, activity }) {
  const id = `setting-${name}`;
  const described = [`meaning-${name}`, kind === 'timeout' ? `in-force-${name}` : '', error ? `error-${name}` : '']
    .filter(Boolean)
    .join(' ');
  const hint = kind === 'checkbox' || kind === 'select' ? '' : hintOf(schema);
  const common = { id, name, 'aria-describedby': described, 'aria-invalid': error ? 'true' : undefined };
  const meaning = html`<p class="meaning" id=${`meaning-${name}`}>
    ${sentence(schema.description)}${hint ? html` <span class="hint">${hint}</span>` : ''}
  </p>`;
  const errorLine = error ? html`<p class="field-error" id=${`error-${name}`}>${error}</p>` : null;
  const onText = (/** @type {Event} */ e) => onChange(/** @type {HTMLInputElement} */ (e.currentTarget).value);

  if (kind === 'checkbox') {
    return html`<div class="setting checkbox">
      <input type="checkbox" ...${common} checked=${value === true}
        onChange=${(/** @type {Event} */ e) => onChange(/** @type {HTMLInputElement} */ (e.currentTarget).checked)} />
      <label for=${id}><code>${nameWithBreaks(name)}</code></label>
      ${meaning}${errorLine}
    </div>`;
  }
  let input;
  if (kind === 'select') {
    const values = schema['x-enum-any-case'] ?? [];
    input = html`<select ...${common} value=${value} onChange=${onText}>
      ${values.map((v) => html`<option value=${v}>${v}</option>`)}
    </select>`;
  } else if (kind === 'number') {
    const integer = typesOf(schema).includes('integer');
    input = html`<input type="number" ...${common} value=${value} min=${schema.minimum}
      max=${schema.maximum !== undefined && schema.maximum < UNBOUNDED ? schema.maximum : undefined}
      step=${integer ? 1 : 'any'} inputmode=${integer ? 'numeric' : 'decimal'}
      placeholder=${value === '' ? 'not set' : undefined} onInput=${onText} />`;
  } else if (kind === 'timeout') {
    const t = /** @type {TimeoutValue} */ (value);
    const minutes = (schema.anyOf ?? []).find((s) => typesOf(s).includes('integer')) ?? {};
    input = html`<div class="timeout-input">
      <input type="number" ...${common} value=${t.minutes} min=${minutes.minimum} step="1" inputmode="numeric"
        disabled=${t.auto} onInput=${(/** @type {Event} */ e) =>
          onChange({ ...t, minutes: /** @type {HTMLInputElement} */ (e.currentTarget).value })} />
      <span class="unit">minutes</span>
      <label class="inline"><input type="checkbox" id=${`${id}-auto`} checked=${t.auto}
        onChange=${(/** @type {Event} */ e) =>
          onChange({ ...t, auto: /** @type {HTMLInputElement} */ (e.currentTarget).checked })} /> auto</label>
    </div>
    <p class="in-force" id=${`in-force-${name}`}>
      In force now: ${activity.testingTimeoutMinutesInForce} minutes${activity.testingTimeoutMinutes === 'auto' ? ' (auto, from recent runs)' : ''}.
    </p>`;
  } else if (kind === 'list') {
    input = html`<${StatusList} name=${name} value=${/** @type {ListValue} */ (value)} onChange=${onChange}
      describedBy=${described} />`;
  } else if (kind === 'json') {
    input = html`<textarea ...${common} rows="4" spellcheck="false" class="mono" value=${value}
      placeholder="not set (JSON)" onInput=${onText}></textarea>`;
  } else {
    input = html`<input type="text" ...${common} value=${value} onInput=${onText} />`;
  }
  return html`<div class=${`setting ${kind}`}>
    ${kind === 'list' ? html`<span class="label" id=${`label-${name}`}><code>${nameWithBreaks(name)}</code></span>` : html`<label for=${id}><code>${nameWithBreaks(name)}</code></label>`}
    <div class="field">${input}</div>
    ${meaning}${errorLine}
  </div>`;
}

/**
 * The required statuses: the repository's checks (no override), or a list of its own ([] = none).
 * @param {{ name: string, value: ListValue, onChange: (v: ListValue) => void, describedBy: string }} props
 */
function StatusList({ name, value, onChange, describedBy }) {
  const set = (/** @type {number} */ i, /** @type {string} */ text) =>
    onChange({ ...value, items: value.items.map((s, j) => (j === i ? text : s)) });
  return html`<div class="status-list" role="group" aria-labelledby=${`label-${name}`} aria-describedby=${describedBy}>
    <label class="inline"><input type="checkbox" id=${`setting-${name}`} checked=${value.override}
      onChange=${(/** @type {Event} */ e) =>
        onChange({ ...value, override: /** @type {HTMLInputElement} */ (e.currentTarget).checked })} />
      Override the repository's required checks</label>
    ${
      value.override &&
      html`<ul>
        ${value.items.map(
          (s, i) => html`<li key=${i}>
            <input type="text" id=${`${name}-${i}`} aria-label=${`Required status ${i + 1}`} value=${s}
              onInput=${(/** @type {Event} */ e) => set(i, /** @type {HTMLInputElement} */ (e.currentTarget).value)} />
            <button type="button" class="quiet" aria-label=${`Remove required status ${s || i + 1}`}
              onClick=${() => onChange({ ...value, items: value.items.filter((_, j) => j !== i) })}>Remove</button>
          </li>`,
        )}
      </ul>
      ${value.items.length === 0 && html`<p class="muted">No status is required: a test run passes once its test commit exists.</p>`}
      <button type="button" class="quiet" onClick=${() => onChange({ ...value, items: [...value.items, ''] })}>
        Add a required status
      </button>`
    }
  </div>`;
}

/**
 * A group of the form: a field per setting, then the values it only shows (the adaptive mode's current
 * concurrency, batch size and failure rate) once getQueue answers them.
 * @param {{ group: Group, schemas: Schemas, q: QueueSettings, activity: QueueActivity,
 *   kind: (name: string) => Kind, shown: (name: string) => FormValue, errors: Record<string, string>,
 *   onChange: (name: string, v: FormValue) => void }} props
 */
export function SettingsGroup({ group: g, schemas, q, activity, kind, shown, errors, onChange }) {
  const values = /** @type {Record<string, unknown>} */ (q);
  const readouts = g.readouts ?? [];
  return html`<fieldset class="card">
    <legend>${g.title}</legend>
    ${g.fields.map(
      (name) => html`<${Setting} key=${name} name=${name} schema=${schemas.input[name]} kind=${kind(name)}
        value=${shown(name)} error=${errors[name] ?? null} activity=${activity}
        onChange=${(/** @type {FormValue} */ v) => onChange(name, v)} />`,
    )}
    ${
      readouts.some((r) => values[r] !== undefined) &&
      html`<dl class="facts readouts">
      ${readouts.map(
        (r) => html`<dt><code>${r}</code></dt>
          <dd>${valueWords(values[r])}
            <span class="meaning block">${sentence(schemas.output[r]?.description)}</span></dd>`,
      )}
    </dl>`
    }
  </fieldset>`;
}
