/**
 * The settings page's pure modules in Node (web/settings/): the form built from the server's own schemas
 * (those of src/api/v1/schemas, which GET /v1/openapi.json publishes), what saving sends and says, and the
 * freezes' changes. What a person sees and does on the page is test/dashboard/settings.browser.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { QueueResponse, UpdateQueueRequest } from '../../src/api/v1/schemas/queue.js';
import type { QueueSettings } from '../../src/client/index.js';
import {
  changeOf,
  changesOf,
  formValue,
  refusalWords,
  refusedSetting,
  savedText,
  valueWords,
} from '../../web/settings/changes.js';
import {
  inEffect,
  NO_FREEZES,
  oneOffFreeze,
  refusedFreezeField,
  windowText,
  withFreeze,
  withoutFreezes,
} from '../../web/settings/freeze-changes.js';
import { groupsOf, hintOf, kindOf, type Schemas, sentence, settingOf } from '../../web/settings/schema.js';

const schemas: Schemas = { input: UpdateQueueRequest.properties, output: QueueResponse.properties };

/** A queue's settings as getQueue answers them: the demo's defaults, with `changes`. */
const queueOf = (changes: Record<string, unknown> = {}) =>
  ({
    state: 'RUNNING',
    mode: 'single',
    concurrency: 3,
    testingTimeoutMinutes: 60,
    requiredStatuses: null,
    mergeMethod: 'squash',
    commentsEnabled: true,
    enqueueingLabel: 'merge',
    ...changes,
  }) as unknown as QueueSettings;

describe('the settings form, from the schemas', () => {
  it('edits every setting updateQueue takes and getQueue answers, each in its group; state, freezes, quarantine and commit messages are set elsewhere', () => {
    const groups = groupsOf(schemas);
    const edited = groups.flatMap((g) => g.fields);
    const settable = Object.keys(schemas.input).filter((n) => n in schemas.output);
    const ownSections = ['state', 'freezes', 'quarantinedStatuses', 'autoQuarantine', 'autoQuarantineThreshold'];
    const own = [...ownSections, 'autoQuarantineMinResults', 'commitMessages'];
    expect(edited.sort()).toEqual(settable.filter((n) => !own.includes(n)).sort());
    // Every setting of today has a group of its own: none falls under "Other settings".
    expect(groups.map((g) => g.title)).toEqual([
      'Testing',
      'Batching',
      'Adaptive mode',
      'Required statuses and CI',
      'Merging',
      'Pull requests, comments and labels',
    ]);
  });

  it('puts a setting the server adds later, and no group names, under "Other settings"', () => {
    const later = { type: 'integer', description: 'Something new' };
    const groups = groupsOf({ input: { ...schemas.input, later }, output: { ...schemas.output, later } });
    expect(groups.at(-1)).toEqual({ title: 'Other settings', fields: ['later'] });
  });

  it('gives each setting the field its schema takes', () => {
    const kinds = Object.fromEntries(
      [
        'concurrency',
        'testingTimeoutMinutes',
        'requiredStatuses',
        'mergeMethod',
        'commentsEnabled',
        'enqueueingLabel',
      ].map((n) => [n, kindOf(schemas.input[n]!)]),
    );
    expect(kinds).toEqual({
      concurrency: 'number',
      testingTimeoutMinutes: 'timeout',
      requiredStatuses: 'list',
      mergeMethod: 'select',
      commentsEnabled: 'checkbox',
      enqueueingLabel: 'text',
    });
  });

  it("hints at what a setting expects, from the schema's own words or its range", () => {
    expect(hintOf(schemas.input.ciRetries!)).toBe('Expects an integer from 0 to 5.');
    expect(hintOf(schemas.input.notReadyTimeoutHours!)).toBe('Expects a number ≥ 0.');
    expect(hintOf(schemas.input.pendingFailureDepth!)).toBe('Expects a whole number ≥ 0.');
    expect(hintOf({ type: 'integer', minimum: 1, maximum: 10 })).toBe('Expects a whole number from 1 to 10.');
    expect(hintOf(schemas.input.mergeMethod!)).toBe('');
    expect([sentence('Comment on PRs'), sentence('Done (0 = off)'), sentence(undefined)]).toEqual([
      'Comment on PRs.',
      'Done (0 = off)',
      '',
    ]);
  });

  it('reads an extension getQueue leaves out while it is off as its default', () => {
    const q = queueOf();
    expect([settingOf(q, 'ciRetries'), settingOf(q, 'adaptiveMode'), settingOf(q, 'concurrency')]).toEqual([
      0,
      'off',
      3,
    ]);
    expect(settingOf(queueOf({ ciRetries: 2 }), 'ciRetries')).toBe(2);
  });
});

describe('what saving the settings sends and says', () => {
  it('holds each value as its field does: the timeout in force while "auto", the repository\'s checks as no override', () => {
    expect(formValue('timeout', 'auto', 42)).toEqual({ auto: true, minutes: '42' });
    expect(formValue('timeout', 60, 42)).toEqual({ auto: false, minutes: '60' });
    expect(formValue('list', null, 0)).toEqual({ override: false, items: [] });
    expect(formValue('list', ['ci'], 0)).toEqual({ override: true, items: ['ci'] });
    expect([formValue('checkbox', true, 0), formValue('number', 3, 0), formValue('number', undefined, 0)]).toEqual([
      true,
      '3',
      '',
    ]);
  });

  it('sends only what changed, as updateQueue takes it', () => {
    expect(changeOf('concurrency', 'number', '3', 3)).toEqual({});
    expect(changeOf('concurrency', 'number', '5', 3)).toEqual({ concurrency: 5 });
    // An emptied number is sent as null, for the server to refuse; left empty, it is not sent.
    expect(changeOf('concurrency', 'number', ' ', 3)).toEqual({ concurrency: null });
    expect(changeOf('batchingMinSize', 'number', '', undefined)).toEqual({});
    expect(changeOf('mergeMethod', 'select', 'SQUASH', 'squash')).toEqual({});
    expect(changeOf('testingTimeoutMinutes', 'timeout', { auto: true, minutes: '60' }, 60)).toEqual({
      testingTimeoutMinutes: 'auto',
    });
    expect(changeOf('testingTimeoutMinutes', 'timeout', { auto: false, minutes: '60' }, 'auto')).toEqual({
      testingTimeoutMinutes: 60,
    });
    expect(changeOf('requiredStatuses', 'list', { override: true, items: [' ci ', ''] }, null)).toEqual({
      requiredStatuses: ['ci'],
    });
    expect(changeOf('requiredStatuses', 'list', { override: false, items: [] }, ['ci'])).toEqual({
      deleteRequiredStatuses: true,
    });
  });

  it('names the settings it changes, and says each before and after', () => {
    const before = queueOf();
    const draft: Record<string, unknown> = {
      concurrency: '5',
      ciRetries: '2',
      requiredStatuses: { override: true, items: [] },
    };
    const names = ['concurrency', 'ciRetries', 'requiredStatuses', 'mergeMethod'];
    const kind = (n: string) => kindOf(schemas.input[n]!);
    const { body, changed } = changesOf(
      names,
      kind,
      (n) => (draft[n] ?? formValue(kind(n), settingOf(before, n), 60)) as never,
      before,
    );
    expect(body).toEqual({ concurrency: 5, ciRetries: 2, requiredStatuses: [] });
    expect(changed).toEqual(['concurrency', 'ciRetries', 'requiredStatuses']);
    const after = queueOf({ concurrency: 5, ciRetries: 2, requiredStatuses: [] });
    expect(savedText(changed, before, after)).toBe(
      "Saved: concurrency 3 → 5; ciRetries 0 → 2; requiredStatuses the repository's checks → none required.",
    );
    expect([valueWords(true), valueWords(false), valueWords(undefined), valueWords(['a', 'b'])]).toEqual([
      'on',
      'off',
      'not set',
      'a, b',
    ]);
  });

  it('words a refusal beside its field without the validator path', () => {
    expect(
      refusalWords('Invalid request: body/concurrency must be an integer from 1 to 1000, got 0', 'concurrency'),
    ).toBe('Must be an integer from 1 to 1000, got 0.');
    expect(refusalWords('ciRetries must be an integer from 0 to 5, got 9', 'ciRetries')).toBe(
      'Must be an integer from 0 to 5, got 9.',
    );
    expect(refusalWords('deleteRequiredStatuses cannot be sent with requiredStatuses', 'requiredStatuses')).toBe(
      'deleteRequiredStatuses cannot be sent with requiredStatuses.',
    );
  });

  it('finds the setting a refusal names first; deleteRequiredStatuses is the requiredStatuses field', () => {
    const names = ['concurrency', 'ciRetries', 'requiredStatuses'];
    expect(refusedSetting('body/ciRetries must be an integer from 0 to 5, got 9', names)).toBe('ciRetries');
    expect(refusedSetting('body/concurrency must be ≥ 1; body/ciRetries …', names)).toBe('concurrency');
    expect(refusedSetting('deleteRequiredStatuses cannot be sent with requiredStatuses', names)).toBe(
      'requiredStatuses',
    );
    // A whole word only: "bisectionConcurrency" is not "concurrency".
    expect(refusedSetting('body/bisectionConcurrency must be ≥ 1', names)).toBeNull();
  });
});

describe("the freezes' changes", () => {
  const NOW = Date.parse('2026-01-31T12:00:00Z');
  const oneOff = (from: string, until: string, reason: string) => ({ from, until, reason });
  const past = oneOff('2026-01-30T00:00:00Z', '2026-01-31T00:00:00Z', 'over');
  const holding = oneOff('2026-01-31T10:00:00Z', '2026-01-31T14:00:00Z', 'release');
  const coming = oneOff('2026-02-01T00:00:00Z', '2026-02-02T00:00:00Z', 'later');
  const freezes = { ...NO_FREEZES, oneOff: [past, holding, coming], exemptLabels: ['hotfix'] };

  it('knows the one-off freezes in effect, and ends only those', () => {
    expect(inEffect(freezes, NOW)).toEqual([holding]);
    expect(inEffect(undefined, NOW)).toEqual([]);
    expect(withoutFreezes(freezes, [holding])).toEqual({ freezes: { ...freezes, oneOff: [past, coming] } });
  });

  it('adds a one-off freeze from now, sending what cannot be read as a time as typed', () => {
    const entry = oneOffFreeze('2026-01-31T15:30:00Z', 'release 2.4', NOW);
    expect(entry).toEqual({
      from: '2026-01-31T12:00:00.000Z',
      until: '2026-01-31T15:30:00.000Z',
      reason: 'release 2.4',
    });
    expect(oneOffFreeze('soon', 'x', NOW).until).toBe('soon');
    expect(withFreeze(freezes, entry).freezes.oneOff).toEqual([past, holding, coming, entry]);
    expect(withFreeze(freezes, entry).freezes.exemptLabels).toEqual(['hotfix']);
  });

  it('says a recurring window in words, and which field a refusal names', () => {
    const weekly = { cron: '0 18 * * 5', durationMinutes: 60, timeZone: 'Europe/Paris', reason: 'weekend' };
    expect(windowText(weekly)).toBe('cron 0 18 * * 5, 60 min (Europe/Paris): weekend');
    const days = { days: ['sat', 'sun'], start: '00:00', end: '23:59', timeZone: 'UTC' };
    expect(windowText(days)).toBe('sat, sun 00:00–23:59 (UTC)');
    expect(refusedFreezeField('freezes.oneOff[0].until must be after from')).toBe('until');
    expect(refusedFreezeField('freezes.oneOff[0].reason must not be empty')).toBe('reason');
    expect(refusedFreezeField('freezes are refused')).toBe('until');
  });
});

describe('impactedTargetsFromPaths in the form, as JSON', () => {
  const name = 'impactedTargetsFromPaths';
  const setting = { targets: { web: ['web/**'] } };

  it('is a JSON field, empty while off', () => {
    expect(kindOf(schemas.input[name])).toBe('json');
    expect(formValue('json', settingOf(queueOf(), name), 0)).toBe('');
    expect(JSON.parse(String(formValue('json', setting, 0)))).toEqual(setting);
  });

  it('sends the parsed setting, null when emptied, nothing when unchanged, and text that is not JSON as it is', () => {
    expect(changeOf(name, 'json', '{"targets":{"web":["web/**"]}}', null)).toEqual({ [name]: setting });
    expect(changeOf(name, 'json', JSON.stringify(setting, null, 2), setting)).toEqual({});
    expect(changeOf(name, 'json', '  ', setting)).toEqual({ [name]: null });
    expect(changeOf(name, 'json', '', undefined)).toEqual({});
    // The server refuses it with a 400 that says the shape, which the page shows.
    expect(changeOf(name, 'json', '{targets: web}', null)).toEqual({ [name]: '{targets: web}' });
  });

  it('says the setting in words once saved', () => {
    expect([valueWords(null, name), valueWords(setting, name)]).toEqual(['off', '{"targets":{"web":["web/**"]}}']);
  });
});
