/**
 * Freezes through the HTTP API (docs/api.md "Freezes (extension)"): updateQueue takes `freezes`,
 * getQueue reports it with `frozen`, `frozenUntil`, `frozenReason` and `nextFreeze` (judged at the
 * service's clock) while the queue has freezes, and nothing of it otherwise. Bad settings are 400s
 * naming the field.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiHarness, errorOf, json, type ApiHarness } from './api-harness.js';

const FREEZE_FIELDS = ['freezes', 'frozen', 'frozenReason', 'frozenUntil', 'nextFreeze'];

let h: ApiHarness;
beforeEach(async () => {
  h = await createApiHarness();
  h.t.clock.set(Date.parse('2026-03-20T12:00:00Z')); // a Friday
  await h.queueWithPrs(0);
});
afterEach(() => h.close());

const update = (fields: Record<string, unknown>) => h.post('/v1/updateQueue', h.body(fields));
const getQueue = async () => json(await h.post('/v1/getQueue', h.body()));
const freezeFields = (queue: Record<string, unknown>) =>
  Object.keys(queue)
    .filter((k) => FREEZE_FIELDS.includes(k))
    .sort();

const weekend = {
  windows: [{ days: ['Sat', 'sun'], start: '00:00', end: '24:00', timeZone: 'Europe/Berlin', reason: 'weekend' }],
};

describe('freezes', () => {
  it('are absent from getQueue on a queue without them, and after null removed them', async () => {
    expect(freezeFields(await getQueue())).toEqual([]);
    expect((await update({ freezes: weekend })).statusCode).toBe(200);
    expect(freezeFields(await getQueue())).toEqual(FREEZE_FIELDS);
    const res = await update({ freezes: null });
    expect(res.statusCode, res.body).toBe(200);
    expect(freezeFields(await getQueue())).toEqual([]);
  });

  it('getQueue and updateQueue report the setting with its defaults, and the next freeze while not frozen', async () => {
    const res = await update({ freezes: weekend });
    expect(res.statusCode, res.body).toBe(200);
    const expected = {
      state: 'RUNNING',
      freezes: {
        windows: [{ days: ['sat', 'sun'], start: '00:00', end: '24:00', timeZone: 'Europe/Berlin', reason: 'weekend' }],
        oneOff: [],
        exemptLabels: [],
        stopTesting: false,
      },
      frozen: false,
      frozenUntil: null,
      frozenReason: null,
      nextFreeze: { from: '2026-03-20T23:00:00.000Z', until: '2026-03-22T23:00:00.000Z', reason: 'weekend' },
    };
    expect(json(res)).toMatchObject(expected);
    expect(await getQueue()).toMatchObject(expected);
  });

  it('while frozen getQueue answers frozen, until and why; the state stays RUNNING', async () => {
    await update({
      freezes: {
        ...weekend,
        oneOff: [{ from: '2026-03-20T13:00:00+01:00', until: '2026-03-20T15:00:00Z', reason: 'release 2.4' }],
      },
    });
    expect(await getQueue()).toMatchObject({
      state: 'RUNNING',
      frozen: true,
      frozenUntil: '2026-03-20T15:00:00.000Z',
      frozenReason: 'release 2.4',
      nextFreeze: null,
    });
    // The one-off freeze is kept in UTC.
    expect((await getQueue()).freezes.oneOff[0].from).toBe('2026-03-20T12:00:00.000Z');
    h.t.clock.set(Date.parse('2026-03-21T10:00:00Z'));
    expect(await getQueue()).toMatchObject({
      frozen: true,
      frozenUntil: '2026-03-22T23:00:00.000Z',
      frozenReason: 'weekend',
    });
  });

  it("a PR held by the freeze says so in its reason, in getSubmittedPullRequest and the dashboard's activity", async () => {
    h.t.forge.openPr('github.com/acme/web', { number: 1, title: 'Change 1', author: 'dev' });
    await update({
      freezes: {
        stopTesting: true,
        oneOff: [{ from: '2026-03-20T11:00:00Z', until: '2026-03-20T15:00:00Z', reason: 'release 2.4' }],
      },
    });
    expect((await h.post('/v1/submitPullRequest', h.body({ pr: { number: 1 } }))).statusCode).toBe(200);
    await h.t.runEffects();
    const reason = {
      code: 'QUEUE_FROZEN',
      message: 'Queued: the queue is frozen; it goes on when the freeze ends.',
      detail: 'release 2.4, until 2026-03-20T15:00:00.000Z',
    };
    const pr = json(await h.post('/v1/getSubmittedPullRequest', h.body({ pr: { number: 1 } })));
    expect(pr).toMatchObject({ state: 'PENDING', reason });
    const activity = json(await h.post('/v1/getQueueActivity', h.body()));
    expect(activity).toMatchObject({ frozen: true, frozenReason: 'release 2.4' });
    expect(activity.pullRequests[0].explanation).toMatchObject(reason);
    // Once the freeze is over the PR is tested: its reason is its own again.
    h.t.clock.set(Date.parse('2026-03-20T15:00:00Z'));
    await h.t.runEffects();
    const after = json(await h.post('/v1/getSubmittedPullRequest', h.body({ pr: { number: 1 } })));
    expect(after.reason.code).not.toBe('QUEUE_FROZEN');
    expect(after.state).toBe('TESTING');
  });

  it('greenline_queue_frozen_seconds_total counts the seconds frozen, the freeze in effect included', async () => {
    const start = h.t.clock.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    const frozenFor = async () => {
      const text = (await h.get('/v1/getMergeQueueMetrics')).body;
      const line = text.split('\n').find((l) => l.startsWith('greenline_queue_frozen_seconds_total{'));
      return line ? Number(line.split(' ').at(-1)) : null;
    };
    expect(await frozenFor()).toBeNull();
    await update({ freezes: { oneOff: [{ from: iso(start), until: iso(start + 600_000), reason: 'release' }] } });
    h.t.clock.advance(90_000);
    expect(await frozenFor()).toBe(90);
    // The freeze ends at its edge (the queue's wakeup); afterwards the count stays.
    h.t.clock.set(start + 600_000);
    await h.t.runEffects();
    h.t.clock.advance(300_000);
    await h.t.runEffects();
    expect(await frozenFor()).toBe(600);
    expect(await getQueue()).toMatchObject({ frozen: false });
  });

  it.each([
    [
      { windows: [{ cron: '0 25 * * *', durationMinutes: 30, timeZone: 'UTC' }] },
      'freezes.windows[0].cron "0 25 * * *" is not a valid cron expression',
    ],
    [
      { windows: [{ days: ['sat'], start: '00:00', end: '24:00', timeZone: 'Europe/Berlinn' }] },
      'freezes.windows[0].timeZone "Europe/Berlinn" is not a known IANA time zone: use a name like Europe/Berlin or UTC',
    ],
    [
      { oneOff: [{ from: '2026-03-21T00:00:00Z', until: '2026-03-20T00:00:00Z', reason: 'release' }] },
      'freezes.oneOff[0].until must be after from: the freeze would end before it starts',
    ],
    [
      { oneOff: [{ from: 'tomorrow', until: '2026-03-20T00:00:00Z', reason: 'release' }] },
      'freezes.oneOff[0].from must be an ISO-8601 time, e.g. 2026-03-28T18:00:00Z',
    ],
    [
      { windows: [{ days: ['sat'], start: '9:00', end: '17:00', timeZone: 'UTC' }] },
      'freezes.windows[0].start must be a local time HH:MM (00:00 to 24:00), got "9:00"',
    ],
    [{ windows: [{ days: ['sat'], start: '09:00', end: '17:00' }] }, 'body/freezes/windows/0/timeZone is required'],
  ])('%j is refused with 400 naming the field, and changes nothing', async (freezes, message) => {
    const res = await update({ concurrency: 3, freezes });
    const error = errorOf(res);
    expect(error.status).toBe(400);
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toContain(message);
    const queue = await getQueue();
    expect(queue.concurrency).toBe(1);
    expect(freezeFields(queue)).toEqual([]);
  });
});
