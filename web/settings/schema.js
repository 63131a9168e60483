// @ts-check
// The settings as the server's own schema describes them (the descriptions of GET /v1/openapi.json, the
// same text the API reference and the CLI's help show): which settings the form edits and in which
// group, the kind of field each takes, its hint and its meaning as a sentence. No Preact, no DOM.

/** @typedef {import('../../src/client/index.js').QueueSettings} QueueSettings */
/**
 * The part of a JSON schema of the OpenAPI document the settings page reads.
 * @typedef {{ type?: string | string[], description?: string, minimum?: number, maximum?: number,
 *   enum?: string[], 'x-enum-any-case'?: string[], 'x-expected'?: string, anyOf?: Schema[],
 *   items?: Schema, properties?: Record<string, Schema> }} Schema
 */
/** updateQueue's settings (`input`) and getQueue's fields (`output`), by name. @typedef {{ input: Record<string, Schema>, output: Record<string, Schema> }} Schemas */
/** @typedef {'number' | 'text' | 'select' | 'checkbox' | 'timeout' | 'list' | 'json'} Kind */
/** A group of the form: its settings, and values getQueue answers that only show (`readouts`). @typedef {{ title: string, fields: string[], readouts?: string[] }} Group */

/**
 * Settings with a section of their own rather than a field of the form; the quarantine settings are
 * set through updateQueue (the form's list field is the required-statuses override) and shown on the queue page;
 * the commit message templates are set through updateQueue or `greenline queue update --commit-messages`.
 */
const OWN_SECTIONS = [
  'state',
  'freezes',
  'quarantinedStatuses',
  'autoQuarantine',
  'autoQuarantineThreshold',
  'autoQuarantineMinResults',
  'commitMessages',
];

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
      'impactedTargetsFromPaths',
    ],
  },
  { title: 'Batching', fields: ['batch', 'batchingMinSize', 'batchingMaxWaitTimeMinutes', 'riskAwareBatching'] },
  {
    title: 'Adaptive mode',
    fields: ['adaptiveMode', 'adaptiveMinConcurrency'],
    readouts: ['adaptiveConcurrency', 'adaptiveBatchSize', 'adaptiveFailureRate'],
  },
  {
    title: 'Required statuses and CI',
    fields: [
      'requiredStatuses',
      'ciRetries',
      'requiredStatusStartTimeoutMinutes',
      'allSkippedPasses',
      'tryConcurrency',
    ],
  },
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
const ABSENT = {
  ciRetries: 0,
  requiredStatusStartTimeoutMinutes: 0,
  adaptiveMode: 'off',
  riskAwareBatching: 'on',
  allSkippedPasses: false,
  tryConcurrency: 1,
  quarantinedStatuses: [],
  autoQuarantine: 'off',
  autoQuarantineThreshold: 0.1,
  autoQuarantineMinResults: 20,
  impactedTargetsFromPaths: null,
};

/** The largest integer the schemas allow where they mean "no upper bound". */
export const UNBOUNDED = 4294967295;

/** @param {Schema} schema @returns {string[]} */
export const typesOf = (schema) =>
  schema.anyOf ? schema.anyOf.flatMap(typesOf) : [schema.type ?? []].flat().filter((t) => t !== 'null');

/** The field a setting takes. @param {Schema} schema @returns {Kind} */
export function kindOf(schema) {
  const types = typesOf(schema);
  if (schema['x-enum-any-case']) return 'select';
  if (types.includes('integer') && types.includes('string')) return 'timeout';
  if (types.includes('boolean')) return 'checkbox';
  if (types.includes('array')) return 'list';
  if (types.includes('object')) return 'json';
  if (types.includes('integer') || types.includes('number')) return 'number';
  return 'text';
}

/** The settings the form edits: those updateQueue takes and getQueue answers, by group. @param {Schemas} schemas @returns {Group[]} */
export function groupsOf(schemas) {
  const settable = Object.keys(schemas.input).filter((name) => name in schemas.output && !OWN_SECTIONS.includes(name));
  const grouped = GROUPS.flatMap((g) => g.fields);
  const other = settable.filter((name) => !grouped.includes(name));
  return [
    ...GROUPS.map((g) => ({ ...g, fields: g.fields.filter((f) => settable.includes(f)) })),
    ...(other.length > 0 ? [{ title: 'Other settings', fields: other }] : []),
  ].filter((g) => g.fields.length > 0);
}

/** A setting's value as getQueue answers it, or what its absence means. @param {QueueSettings} q @param {string} name */
export const settingOf = (q, name) => (name in q ? /** @type {Record<string, unknown>} */ (q)[name] : ABSENT[name]);

/** The client-side hint of a setting: the schema's expected value, or its range (a select needs none). @param {Schema} s */
export function hintOf(s) {
  if (s['x-expected']) return `Expects ${s['x-expected']}.`;
  const whole = typesOf(s).includes('integer') ? 'a whole number' : 'a number';
  if (s.minimum === undefined) return '';
  return s.maximum === undefined || s.maximum >= UNBOUNDED
    ? `Expects ${whole} ≥ ${s.minimum}.`
    : `Expects ${whole} from ${s.minimum} to ${s.maximum}.`;
}

/** A schema's description as a sentence. @param {string | undefined} text */
export const sentence = (text) => (!text ? '' : /[.!?)]$/.test(text) ? text : `${text}.`);
