// @ts-check
// The queue settings page, #/settings/<host>/<owner>/<name>/<branch>: every setting getQueue answers,
// with its meaning as the server's own schema says it (the descriptions of GET /v1/openapi.json, the
// same text the API reference and the CLI's help show), a form that changes them through updateQueue,
// the queue's state controls (pause, resume, drain) and its freezes. The server judges every value:
// the page sends what was typed and shows the server's refusal beside the field it names.
import { ApiError, call, failed } from '../api.js';
import { errorText, usePageTitle } from '../components.js';
import { announce, confirmDialog, time } from '../dom.js';
import { queueHref, queueLabel } from '../links.js';
import { html, useCallback, useEffect, useRef, useState } from '../ui.js';
import { CONTROLS, FreezeBanner, ManagementBanner, outsideTerraform } from '../queue-state.js';

/** @typedef {import('../../src/client/index.js').Queue} Queue */
/** @typedef {import('../../src/client/index.js').QueueSettings} QueueSettings */
/** @typedef {import('../../src/client/index.js').QueueActivity} QueueActivity */
/** @typedef {import('../../src/client/index.js').QueueRequest} QueueKey */
/** @typedef {import('../../src/client/index.js').UpdateQueueRequest} UpdateQueueRequest */
/** @typedef {NonNullable<Queue['freezes']>} Freezes */
/**
 * The part of a JSON schema of the OpenAPI document this page reads.
 * @typedef {{ type?: string | string[], description?: string, minimum?: number, maximum?: number,
 *   enum?: string[], 'x-enum-any-case'?: string[], 'x-expected'?: string, anyOf?: Schema[],
 *   items?: Schema, properties?: Record<string, Schema> }} Schema
 */
/** updateQueue's settings (`input`) and getQueue's fields (`output`), by name. @typedef {{ input: Record<string, Schema>, output: Record<string, Schema> }} Schemas */
/** @typedef {'number' | 'text' | 'select' | 'checkbox' | 'timeout' | 'list'} Kind */
/** @typedef {{ auto: boolean, minutes: string }} TimeoutValue */
/** @typedef {{ override: boolean, items: string[] }} ListValue */
/** What a field of the form holds. @typedef {string | boolean | TimeoutValue | ListValue} FormValue */

/** Settings with a section of their own rather than a field of the form. */
const OWN_SECTIONS = ['state', 'freezes'];

/** The form's groups; a setting the server adds later and no group names is shown under "Other settings". */
const GROUPS = [
  {
    title: 'Testing',
    fields: [
      'mode',
      'concurrency',
      'bisectionConcurrency',
      'testingTimeoutMinutes',
      'pendingFailureDepth',
      'canOptimisticallyMerge',
      'optimizationMode',
      'testBranchConstructionMode',
    ],
  },
  { title: 'Batching', fields: ['batch', 'batchingMinSize', 'batchingMaxWaitTimeMinutes'] },
  {
    title: 'Adaptive mode',
    fields: ['adaptiveMode', 'adaptiveMinConcurrency'],
    readouts: ['adaptiveConcurrency', 'adaptiveBatchSize', 'adaptiveFailureRate'],
  },
  { title: 'Required statuses and CI', fields: ['requiredStatuses', 'ciRetries', 'requiredStatusStartTimeoutMinutes'] },
  { title: 'Merging', fields: ['mergeMethod', 'directMergeMode', 'notReadyTimeoutHours'] },
  {
    title: 'Pull requests, comments and labels',
    fields: [
      'commentsEnabled',
      'commandsEnabled',
      'statusCheckEnabled',
      'createPrsForTestingBranches',
      'enqueueingLabel',
      'labelCommandsEnabled',
      'stateLabelsEnabled',
      'extensionEnabled',
    ],
  },
];

/**
 * getQueue leaves these extensions out while they are off, so that other queues answer Trunk's shape
 * (api.md, getQueue): absent means this value.
 * @type {Record<string, unknown>}
 */
const ABSENT = { ciRetries: 0, requiredStatusStartTimeoutMinutes: 0, adaptiveMode: 'off' };

/** The largest integer the schemas allow where they mean "no upper bound". */
const UNBOUNDED = 4294967295;

/** @type {Promise<Schemas> | undefined} */
let schemasLoaded;

/** The settings' schemas from the server's OpenAPI document, read once per page load. */
function loadSchemas() {
  schemasLoaded ??= fetch('/v1/openapi.json')
    .then(async (res) => {
      if (!res.ok) throw new ApiError(res.status, `HTTP_${res.status}`, 'GET /v1/openapi.json failed');
      const doc = await res.json();
      return {
        input: doc.paths['/v1/updateQueue'].post.requestBody.content['application/json'].schema.properties,
        output: doc.paths['/v1/getQueue'].post.responses['200'].content['application/json'].schema.properties,
      };
    })
    .catch((err) => {
      schemasLoaded = undefined;
      throw err;
    });
  return schemasLoaded;
}

/** @param {Schema} schema @returns {string[]} */
const typesOf = (schema) =>
  schema.anyOf ? schema.anyOf.flatMap(typesOf) : [schema.type ?? []].flat().filter((t) => t !== 'null');

/** @param {Schema} schema @returns {Kind} */
function kindOf(schema) {
  const types = typesOf(schema);
  if (schema['x-enum-any-case']) return 'select';
  if (types.includes('integer') && types.includes('string')) return 'timeout';
  if (types.includes('boolean')) return 'checkbox';
  if (types.includes('array')) return 'list';
  if (types.includes('integer') || types.includes('number')) return 'number';
  return 'text';
}

/** The settings the form edits: those updateQueue takes and getQueue answers, by group. @param {Schemas} schemas */
function groupsOf(schemas) {
  const settable = Object.keys(schemas.input).filter((name) => name in schemas.output && !OWN_SECTIONS.includes(name));
  const grouped = GROUPS.flatMap((g) => g.fields);
  const other = settable.filter((name) => !grouped.includes(name));
  return [
    ...GROUPS.map((g) => ({ ...g, fields: g.fields.filter((f) => settable.includes(f)) })),
    ...(other.length > 0 ? [{ title: 'Other settings', fields: other }] : []),
  ].filter((g) => g.fields.length > 0);
}

/** A setting's value as getQueue answers it, or what its absence means. @param {QueueSettings} q @param {string} name */
const settingOf = (q, name) => (name in q ? /** @type {Record<string, unknown>} */ (q)[name] : ABSENT[name]);

/**
 * The form's value of a setting; `inForce` is the testing timeout in force (getQueueActivity's), the
 * number shown while the timeout is "auto".
 * @param {Kind} kind @param {unknown} value @param {number} inForce @returns {FormValue}
 */
function formValue(kind, value, inForce) {
  if (kind === 'checkbox') return value === true;
  if (kind === 'timeout')
    return value === 'auto' ? { auto: true, minutes: String(inForce) } : { auto: false, minutes: String(value ?? '') };
  if (kind === 'list')
    return Array.isArray(value) ? { override: true, items: [...value] } : { override: false, items: [] };
  return value === undefined || value === null ? '' : String(value);
}

/** A setting's value in words, for "Saved: concurrency 3 → 5". @param {unknown} value */
function words(value) {
  if (value === undefined) return 'not set';
  if (value === null) return "the repository's checks";
  if (value === true) return 'on';
  if (value === false) return 'off';
  if (Array.isArray(value)) return value.length === 0 ? 'none required' : value.join(', ');
  return String(value);
}

const sameList = (/** @type {unknown} */ a, /** @type {string[]} */ b) =>
  Array.isArray(a) && a.length === b.length && a.every((v, i) => v === b[i]);

/**
 * The updateQueue fields that change a setting from `value` (getQueue's) to the form's `form`; {} when
 * it does not change. The server judges the values: an empty number is sent as null, which it refuses.
 * @param {string} name @param {Kind} kind @param {FormValue} form @param {unknown} value
 * @returns {Record<string, unknown>}
 */
function changeOf(name, kind, form, value) {
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
  if (kind === 'select') return text.toLowerCase() === String(value).toLowerCase() ? {} : { [name]: text };
  return text === value ? {} : { [name]: text };
}

/** The client-side hint of a setting: the schema's expected value, or its range (a select needs none). @param {Schema} s */
function hintOf(s) {
  if (s['x-expected']) return `Expects ${s['x-expected']}.`;
  const whole = typesOf(s).includes('integer') ? 'a whole number' : 'a number';
  if (s.minimum === undefined) return '';
  return s.maximum === undefined || s.maximum >= UNBOUNDED
    ? `Expects ${whole} ≥ ${s.minimum}.`
    : `Expects ${whole} from ${s.minimum} to ${s.maximum}.`;
}

/** The setting a server message names ("body/ciRetries must be …", "freezes.oneOff[0].until …"), or null. @param {string} message @param {string[]} names */
function fieldNamed(message, names) {
  let found = null;
  let at = Infinity;
  for (const name of names) {
    const i = message.search(new RegExp(`\\b${name}\\b`));
    if (i >= 0 && i < at) [found, at] = [name, i];
  }
  return found;
}

/** A schema's description as a sentence. @param {string | undefined} text */
const sentence = (text) => (!text ? '' : /[.!?)]$/.test(text) ? text : `${text}.`);

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
      <label for=${id}><code>${name}</code></label>
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
  } else {
    input = html`<input type="text" ...${common} value=${value} onInput=${onText} />`;
  }
  return html`<div class=${`setting ${kind}`}>
    ${kind === 'list' ? html`<span class="label" id=${`label-${name}`}><code>${name}</code></span>` : html`<label for=${id}><code>${name}</code></label>`}
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
 * Keeps keyboard focus in `ref` when an action removes the control that had it (Pause once paused,
 * Unfreeze once unfrozen): after `key` changed, focus goes to the first control left. Returns the flag
 * an action sets.
 * @param {{ current: HTMLElement | null }} ref @param {unknown} key
 */
function useFocusKept(ref, key) {
  const acted = useRef(false);
  useEffect(() => {
    if (acted.current && (document.activeElement === null || document.activeElement === document.body))
      /** @type {HTMLElement | null | undefined} */ (ref.current?.querySelector('button, input'))?.focus();
    acted.current = false;
  }, [key]);
  return acted;
}

/** A result line: what an action did, or why it failed, in words. @typedef {{ ok: boolean, text: string }} Outcome */
/**
 * Sends a change to updateQueue after the confirmation `dialog`; resolves to the outcome in words
 * (`done` words the answer), or null when cancelled.
 * @typedef {(dialog: { title: string, text: string, action: string }, body: Partial<UpdateQueueRequest>,
 *   done: (after: QueueSettings) => string) => Promise<Outcome | null>} Run
 */

/** @param {{ outcome: Outcome | null, id: string }} props */
function OutcomeLine({ outcome, id }) {
  return html`<p id=${id} class=${outcome ? (outcome.ok ? 'outcome notice' : 'outcome error') : 'outcome'} role="status">
    ${outcome?.text ?? ''}
  </p>`;
}

/**
 * The queue's state and its controls: each shown only when updateQueue accepts it (a queue switching
 * modes takes no state until the switch completed), each after confirmation.
 * @param {{ q: QueueSettings, activity: QueueActivity, title: string, run: Run }} props
 */
function StateControls({ q, activity, title, run }) {
  const [outcome, setOutcome] = useState(/** @type {Outcome | null} */ (null));
  const state = String(q.state).toUpperCase();
  const switching = state === 'SWITCHING_MODES';
  const section = useRef(/** @type {HTMLElement | null} */ (null));
  const acted = useFocusKept(section, state);
  return html`<section class="card" aria-labelledby="state-title" ref=${section}>
    <h2 id="state-title">State</h2>
    <p>The queue is <strong class=${`badge state-${state.toLowerCase()}`}>${state}</strong>.
      ${switching && ' It is switching modes: its state can be set once the switch completed.'}</p>
    <div class="controls" role="group" aria-label="Queue state">
      ${CONTROLS.filter((c) => !switching && c.state !== state).map(
        (c) =>
          html`<button type="button" key=${c.state} onClick=${async () => {
            acted.current = true;
            setOutcome(
              await run(
                { title: `${c.label} ${title}?`, text: c.text + outsideTerraform(activity), action: c.label },
                { state: c.state },
                (after) => `${c.label}: done. The queue is ${String(after.state).toUpperCase()}.`,
              ),
            );
          }}>${c.label}</button>`,
      )}
    </div>
    <${OutcomeLine} outcome=${outcome} id="state-outcome" />
  </section>`;
}

/** The one-off freezes in effect at `now`. @param {Freezes | undefined} f @param {number} now */
const inEffect = (f, now) => (f?.oneOff ?? []).filter((o) => Date.parse(o.from) <= now && now < Date.parse(o.until));

/** @param {NonNullable<Freezes['windows']>[number]} w */
const windowText = (w) =>
  `${w.cron ? `cron ${w.cron}, ${w.durationMinutes} min` : `${(w.days ?? []).join(', ')} ${w.start}–${w.end}`} (${w.timeZone})${w.reason ? `: ${w.reason}` : ''}`;

/**
 * The queue's freezes as stored, a form that adds a one-off freeze from now (the CLI's queue freeze),
 * and Unfreeze while a one-off freeze is in effect (queue unfreeze).
 * @param {{ q: QueueSettings, activity: QueueActivity, schemas: Schemas, title: string, run: Run }} props
 */
function FreezeSection({ q, activity, schemas, title, run }) {
  const [until, setUntil] = useState('');
  const [reason, setReason] = useState('');
  const [outcome, setOutcome] = useState(/** @type {Outcome | null} */ (null));
  const [error, setError] = useState(/** @type {{ field: string, text: string } | null} */ (null));
  const schema = schemas.input.freezes ?? {};
  const parts = schema.properties ?? {};
  const oneOff = parts.oneOff?.items?.properties ?? {};
  const current = q.freezes ?? { windows: [], oneOff: [], exemptLabels: [], stopTesting: false };
  const ending = inEffect(q.freezes, Date.now());
  const section = useRef(/** @type {HTMLElement | null} */ (null));
  const acted = useFocusKept(section, ending.length);

  const freeze = async (/** @type {Event} */ event) => {
    event.preventDefault();
    setError(null);
    const ends = Date.parse(until);
    const entry = {
      from: new Date().toISOString(),
      until: Number.isFinite(ends) ? new Date(ends).toISOString() : until,
      reason,
    };
    const result = await run(
      {
        title: `Freeze ${title}?`,
        text:
          `Freeze the queue until ${Number.isFinite(ends) ? time(entry.until) : 'the time given'}: it starts no merge, ` +
          `except urgent PRs and PRs with an exempt label; its state stays ${q.state}.${outsideTerraform(activity)}`,
        action: 'Freeze',
      },
      { freezes: { ...current, oneOff: [...current.oneOff, entry] } },
      (after) =>
        after.frozen ? `Frozen until ${time(String(after.frozenUntil))}: ${after.frozenReason}.` : 'Freeze added.',
    );
    if (result && !result.ok) {
      const field = /\buntil\b/.test(result.text) ? 'until' : /\breason\b/.test(result.text) ? 'reason' : 'until';
      setError({ field, text: result.text });
      setOutcome(null);
    } else {
      setOutcome(result);
      if (result) {
        setUntil('');
        setReason('');
      }
    }
  };
  const unfreeze = async () => {
    acted.current = true;
    setOutcome(
      await run(
        {
          title: `Unfreeze ${title}?`,
          text: `End ${ending.map((o) => `"${o.reason}"`).join(', ')} now; recurring freezes stay.${outsideTerraform(activity)}`,
          action: 'Unfreeze',
        },
        { freezes: { ...current, oneOff: current.oneOff.filter((o) => !ending.includes(o)) } },
        (after) =>
          `Ended ${ending.map((o) => `"${o.reason}"`).join(', ')}: ${after.frozen ? `still frozen until ${time(String(after.frozenUntil))} (${after.frozenReason}).` : 'the queue is not frozen.'}`,
      ),
    );
  };
  const describedUntil = ['freeze-until-meaning', error?.field === 'until' ? 'freeze-error' : '']
    .filter(Boolean)
    .join(' ');
  const describedReason = ['freeze-reason-meaning', error?.field === 'reason' ? 'freeze-error' : '']
    .filter(Boolean)
    .join(' ');
  const errorLine = (/** @type {string} */ field) =>
    error?.field === field ? html`<p class="field-error" id="freeze-error">${error.text}</p>` : null;

  return html`<section class="card" aria-labelledby="freezes-title" ref=${section}>
    <h2 id="freezes-title">Freezes</h2>
    <p class="meaning">${sentence(schema.description)}</p>
    <${FreezeBanner} activity=${activity} />
    <dl class="facts">
      <dt><code>oneOff</code></dt>
      <dd>${current.oneOff.length === 0 ? 'none' : html`<ul class="plain">${current.oneOff.map((o) => html`<li>${time(o.from)} – ${time(o.until)}: ${o.reason}</li>`)}</ul>`}
        <span class="meaning block">${sentence(parts.oneOff?.description)}</span></dd>
      <dt><code>windows</code></dt>
      <dd>${current.windows.length === 0 ? 'none' : html`<ul class="plain">${current.windows.map((w) => html`<li>${windowText(w)}</li>`)}</ul>`}
        <span class="meaning block">${sentence(parts.windows?.description)}</span></dd>
      <dt><code>exemptLabels</code></dt>
      <dd>${current.exemptLabels.length === 0 ? 'none' : current.exemptLabels.join(', ')}
        <span class="meaning block">${sentence(parts.exemptLabels?.description)}</span></dd>
      <dt><code>stopTesting</code></dt>
      <dd>${words(current.stopTesting)}<span class="meaning block">${sentence(parts.stopTesting?.description)}</span></dd>
    </dl>
    <p class="muted small">
      Recurring windows, exempt labels and stopTesting are changed with updateQueue's${' '}
      <code>freezes</code> or <code>greenline queue update --freezes</code>.
    </p>
    ${
      ending.length > 0 && html`<div class="controls"><button type="button" onClick=${unfreeze}>Unfreeze</button></div>`
    }
    <form class="freeze-form" noValidate onSubmit=${freeze} aria-labelledby="freeze-form-title">
      <h3 id="freeze-form-title">Freeze from now</h3>
      <div class="setting">
        <label for="freeze-until">Until</label>
        <div class="field"><input type="datetime-local" id="freeze-until" name="until" required value=${until}
          aria-describedby=${describedUntil} aria-invalid=${error?.field === 'until' ? 'true' : undefined}
          onInput=${(/** @type {Event} */ e) => setUntil(/** @type {HTMLInputElement} */ (e.currentTarget).value)} /></div>
        <p class="meaning" id="freeze-until-meaning">When the freeze ends, in your browser's time zone; it starts now.</p>
        ${errorLine('until')}
      </div>
      <div class="setting">
        <label for="freeze-reason">Reason</label>
        <div class="field"><input type="text" id="freeze-reason" name="reason" required value=${reason}
          aria-describedby=${describedReason} aria-invalid=${error?.field === 'reason' ? 'true' : undefined}
          onInput=${(/** @type {Event} */ e) => setReason(/** @type {HTMLInputElement} */ (e.currentTarget).value)} /></div>
        <p class="meaning" id="freeze-reason-meaning">${sentence(oneOff.reason?.description)}</p>
        ${errorLine('reason')}
      </div>
      <div class="actions"><button type="submit">Freeze</button></div>
    </form>
    <${OutcomeLine} outcome=${outcome} id="freeze-outcome" />
  </section>`;
}

/** @param {{ queueKey: QueueKey }} props */
export function SettingsPage({ queueKey }) {
  const [loaded, setLoaded] = useState(
    /** @type {{ q: Queue, activity: QueueActivity, schemas: Schemas } | null} */ (null),
  );
  const [problem, setProblem] = useState(/** @type {string | null} */ (null));
  /** The form's values the user changed, by setting; the others show the queue's. */
  const [draft, setDraft] = useState(/** @type {Record<string, FormValue>} */ ({}));
  const [errors, setErrors] = useState(/** @type {Record<string, string>} */ ({}));
  const [saved, setSaved] = useState(/** @type {Outcome | null} */ (null));
  const title = queueLabel(queueKey);

  const reload = useCallback(async () => {
    try {
      const [q, activity, schemas] = await Promise.all([
        call('getQueue', queueKey),
        call('getQueueActivity', queueKey),
        loadSchemas(),
      ]);
      setLoaded({ q, activity, schemas });
      return true;
    } catch (err) {
      if (!failed(err)) setProblem(errorText(err));
      return false;
    }
  }, [queueKey]);

  useEffect(() => {
    reload();
  }, [reload]);
  usePageTitle(loaded ? `Settings of ${title}` : problem ? `Cannot show the settings of ${title}` : null);

  if (problem) {
    return html`<div class="card">
      <h1>Settings of ${title}</h1>
      <p class="error" role="alert">${problem}</p>
      <p><a href=${queueHref(queueKey)}>Back to the queue</a></p>
    </div>`;
  }
  if (!loaded) return html`<p class="notice" role="status">Loading…</p>`;
  const { q, activity, schemas } = loaded;
  const groups = groupsOf(schemas);
  const names = groups.flatMap((g) => g.fields);
  /** @param {string} name */
  const kind = (name) => kindOf(schemas.input[name] ?? {});
  /** @param {string} name */
  const shown = (name) =>
    draft[name] ?? formValue(kind(name), settingOf(q, name), activity.testingTimeoutMinutesInForce);
  const managed = activity.managedBy === 'terraform';

  /** @type {Run} The page is reloaded after a change. */
  const run = async (dialog, body, done) => {
    if (!(await confirmDialog(dialog))) return null;
    try {
      /** @type {QueueSettings} */
      const after = await call('updateQueue', { ...queueKey, ...body });
      const text = done(after);
      announce(text);
      await reload();
      return { ok: true, text };
    } catch (err) {
      if (failed(err)) return null;
      const text = `${dialog.action} failed: ${errorText(err)}`;
      announce(text);
      return { ok: false, text };
    }
  };

  const save = async (/** @type {Event} */ event) => {
    event.preventDefault();
    setErrors({});
    /** @type {Record<string, unknown>} */
    const body = {};
    for (const name of names) Object.assign(body, changeOf(name, kind(name), shown(name), settingOf(q, name)));
    const changed = names.filter(
      (name) => name in body || (name === 'requiredStatuses' && 'deleteRequiredStatuses' in body),
    );
    if (changed.length === 0) {
      setSaved({ ok: true, text: 'Nothing to save: every setting is as the queue has it.' });
      return;
    }
    if (
      managed &&
      !(await confirmDialog({
        title: 'Change settings Terraform manages?',
        text:
          `Terraform manages this queue: saving ${changed.join(', ')} here makes the queue drift from Terraform's ` +
          'configuration (it shows as changed outside Terraform), and the next terraform apply sets them back ' +
          'unless the configuration changes too.',
        action: 'Save anyway',
      }))
    ) {
      setSaved({ ok: false, text: 'Not saved: cancelled. Nothing was changed.' });
      return;
    }
    try {
      /** @type {QueueSettings} */
      const after = await call('updateQueue', { ...queueKey, ...body });
      const text = `Saved: ${changed.map((name) => `${name} ${words(settingOf(q, name))} → ${words(settingOf(after, name))}`).join('; ')}.`;
      // The queue as it is now first, then the form without the changes it now holds: no flash of the old values.
      await reload();
      setDraft({});
      setSaved({ ok: true, text });
      announce(text);
    } catch (err) {
      if (failed(err)) return;
      const message = err instanceof ApiError ? err.message : String(err);
      const field = fieldNamed(message, [...names, 'deleteRequiredStatuses']);
      const at = field === 'deleteRequiredStatuses' ? 'requiredStatuses' : field;
      if (at) setErrors({ [at]: message });
      const text = `Not saved: ${errorText(err)}. Nothing was changed.`;
      setSaved({ ok: false, text });
      announce(text);
      if (at) document.getElementById(`setting-${at}`)?.focus();
    }
  };

  return html`<article aria-labelledby="settings-title" class="settings-page">
    <div class="page-head">
      <h1 id="settings-title">Settings of ${title}</h1>
      <a href=${queueHref(queueKey)}>Back to the queue</a>
    </div>
    <${ManagementBanner} activity=${activity} />
    <${StateControls} q=${q} activity=${activity} title=${title} run=${run} />
    <form class="settings-form" noValidate onSubmit=${save} aria-labelledby="form-title">
      <h2 id="form-title">Settings</h2>
      <p class="muted">Each setting by its API name, with what it means. Saving sends only the settings you
        changed to updateQueue; the server checks them and names any it refuses.</p>
      ${groups.map(
        (g) => html`<fieldset class="card" key=${g.title}>
          <legend>${g.title}</legend>
          ${g.fields.map(
            (name) => html`<${Setting} key=${name} name=${name} schema=${schemas.input[name]} kind=${kind(name)}
              value=${shown(name)} error=${errors[name] ?? null} activity=${activity}
              onChange=${(/** @type {FormValue} */ v) => setDraft((d) => ({ ...d, [name]: v }))} />`,
          )}
          ${
            (g.readouts ?? []).some((r) => /** @type {Record<string, unknown>} */ (q)[r] !== undefined) &&
            html`<dl class="facts readouts">
            ${(g.readouts ?? []).map(
              (r) => html`<dt><code>${r}</code></dt>
                <dd>${words(/** @type {Record<string, unknown>} */ (q)[r])}
                  <span class="meaning block">${sentence(schemas.output[r]?.description)}</span></dd>`,
            )}
          </dl>`
          }
        </fieldset>`,
      )}
      <div class="actions save-bar">
        <button type="submit">Save settings</button>
        <${OutcomeLine} outcome=${saved} id="save-outcome" />
      </div>
    </form>
    <${FreezeSection} q=${q} activity=${activity} schemas=${schemas} title=${title} run=${run} />
  </article>`;
}
