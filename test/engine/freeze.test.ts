/**
 * Scheduled freezes with a fake clock: when a queue is frozen (window edges, a daylight-saving
 * change, touching freezes), what it does while frozen (no merge; with stopTesting no test; urgent and
 * labelled PRs exempt), the wakeups at the edges and the queue.frozen / queue.unfrozen events.
 */
import { describe, expect, it } from 'vitest';
import { freezeProblem, freezeStatus, type FreezeSettings } from '../../src/engine/index.js';
import { QueueDriver } from './queue-driver.js';

const t = (iso: string): number => Date.parse(iso);
const settings = (over: Partial<FreezeSettings>): FreezeSettings => ({
  windows: [],
  oneOff: [],
  exemptLabels: [],
  stopTesting: false,
  ...over,
});

/** Weekends in Berlin, and every night from 22:00 to 06:00 Berlin time: a weekend freeze runs Fri 22:00 to Mon 06:00. */
const berlin = settings({
  windows: [
    { days: ['sat', 'sun'], start: '00:00', end: '24:00', timeZone: 'Europe/Berlin', reason: 'weekend' },
    {
      days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'],
      start: '22:00',
      end: '06:00',
      timeZone: 'Europe/Berlin',
    },
  ],
});

describe('freezeStatus', () => {
  it.each([
    // 2026-03-18 is a Wednesday; Berlin is UTC+1 until 2026-03-29 02:00, then UTC+2.
    ['2026-03-18T20:59:59.999Z', false, null],
    ['2026-03-18T21:00:00Z', true, '2026-03-19T05:00:00.000Z'], // 22:00 Berlin: the night starts
    ['2026-03-19T04:59:59Z', true, '2026-03-19T05:00:00.000Z'],
    ['2026-03-19T05:00:00Z', false, null], // 06:00 Berlin: the window end is exclusive
    // Friday night joins the weekend: frozen from Fri 22:00 until Mon 06:00, one freeze.
    ['2026-03-20T21:30:00Z', true, '2026-03-23T05:00:00.000Z'],
    // Saturday 28 March into Sunday 29 March (clocks go forward): Monday 06:00 is now 04:00 UTC.
    ['2026-03-28T12:00:00Z', true, '2026-03-30T04:00:00.000Z'],
    ['2026-03-30T03:59:59Z', true, '2026-03-30T04:00:00.000Z'],
    ['2026-03-30T04:00:00Z', false, null],
    // Autumn: 25 October 2026 clocks go back; Monday 06:00 is 05:00 UTC again.
    ['2026-10-25T01:30:00Z', true, '2026-10-26T05:00:00.000Z'],
  ])('at %s frozen=%s until %s', (at, frozen, until) => {
    const s = freezeStatus(berlin, t(at));
    expect(s.frozen).toBe(frozen);
    if (s.frozen) expect(new Date(s.until).toISOString()).toBe(until);
  });

  it('reports the reason of the freeze and the next one when not frozen', () => {
    const s = freezeStatus(berlin, t('2026-03-18T12:00:00Z'));
    expect(s).toEqual({
      frozen: false,
      next: { from: t('2026-03-18T21:00:00Z'), until: t('2026-03-19T05:00:00Z'), reason: 'scheduled freeze' },
    });
    expect(freezeStatus(berlin, t('2026-03-21T12:00:00Z'))).toMatchObject({ frozen: true, reason: 'weekend' });
  });

  it('a window starting in the hour the clocks skip starts at the first valid local time', () => {
    // Sunday 29 March 2026, 02:30 does not exist in Berlin: the freeze starts at 03:00 CEST (01:00 UTC).
    const s = settings({ windows: [{ days: ['sun'], start: '02:30', end: '05:00', timeZone: 'Europe/Berlin' }] });
    expect(freezeStatus(s, t('2026-03-29T00:59:00Z')).frozen).toBe(false);
    expect(freezeStatus(s, t('2026-03-29T01:30:00Z'))).toMatchObject({
      frozen: true,
      until: t('2026-03-29T03:00:00Z'),
    });
  });

  it('a cron window lasts durationMinutes from each time it fires, in its time zone across DST', () => {
    // Every Friday 18:00 Berlin for 1 hour.
    const s = settings({
      windows: [{ cron: '0 18 * * 5', durationMinutes: 60, timeZone: 'Europe/Berlin', reason: 'release train' }],
    });
    expect(freezeStatus(s, t('2026-03-27T16:59:00Z')).frozen).toBe(false); // before the change: UTC+1
    expect(freezeStatus(s, t('2026-03-27T17:00:00Z'))).toMatchObject({ frozen: true, reason: 'release train' });
    expect(freezeStatus(s, t('2026-03-27T18:00:00Z')).frozen).toBe(false);
    expect(freezeStatus(s, t('2026-04-03T16:00:00Z'))).toMatchObject({
      frozen: true,
      until: t('2026-04-03T17:00:00Z'),
    });
    expect(freezeStatus(s, t('2026-04-03T17:00:00Z')).frozen).toBe(false);
  });

  it('one-off freezes start at from and end at until; touching freezes join', () => {
    const s = settings({
      oneOff: [
        { from: '2026-05-01T10:00:00Z', until: '2026-05-01T12:00:00Z', reason: 'release 2.4' },
        { from: '2026-05-01T12:00:00Z', until: '2026-05-01T13:00:00Z', reason: 'release 2.4 follow-up' },
      ],
    });
    expect(freezeStatus(s, t('2026-05-01T09:59:59Z'))).toMatchObject({
      frozen: false,
      next: { reason: 'release 2.4' },
    });
    expect(freezeStatus(s, t('2026-05-01T10:00:00Z'))).toEqual({
      frozen: true,
      reason: 'release 2.4',
      until: t('2026-05-01T13:00:00Z'),
    });
    expect(freezeStatus(s, t('2026-05-01T13:00:00Z'))).toEqual({ frozen: false, next: null });
  });
});

describe('freezeProblem', () => {
  it.each([
    [{ ...berlin, windows: [{ cron: '61 * * * *', durationMinutes: 5, timeZone: 'UTC' }] }, 'freezes.windows[0].cron'],
    [
      { ...berlin, windows: [{ days: ['sat'], start: '00:00', end: '24:00', timeZone: 'Mars/Olympus' }] },
      'freezes.windows[0].timeZone',
    ],
    [
      { ...berlin, windows: [{ days: ['someday'], start: '00:00', end: '01:00', timeZone: 'UTC' }] },
      'freezes.windows[0].days',
    ],
    [
      { ...berlin, windows: [{ days: ['mon'], start: '25:00', end: '01:00', timeZone: 'UTC' }] },
      'freezes.windows[0].start',
    ],
    [{ ...berlin, windows: [{ cron: '0 18 * * 5', timeZone: 'UTC' }] }, 'freezes.windows[0].durationMinutes'],
    [
      { ...berlin, oneOff: [{ from: '2026-05-02T00:00:00Z', until: '2026-05-01T00:00:00Z', reason: 'x' }] },
      'freezes.oneOff[0].until must be after from',
    ],
    [
      { ...berlin, oneOff: [{ from: '2026-05-01T00:00:00Z', until: '2026-05-02T00:00:00Z' }] },
      'freezes.oneOff[0].reason',
    ],
    [{ ...berlin, stopTesting: 'yes' }, 'freezes.stopTesting'],
  ])('%j → names %s', (value, field) => {
    expect(freezeProblem(value)).toContain(field);
  });

  it('accepts the settings of these tests', () => {
    expect(freezeProblem(berlin)).toBeNull();
  });
});

/** Moves the driver's clock to `iso` and delivers a tick there (later events follow it). */
function tickAt(q: QueueDriver, iso: string): void {
  q.now = t(iso);
  q.send({ kind: 'tick', at: q.now });
}

describe('a frozen queue', () => {
  const friday = t('2026-03-20T20:00:00Z'); // Friday 21:00 Berlin: the night freeze starts at 21:00 UTC

  function queueAt(at: number, over: Partial<FreezeSettings> = {}, concurrency = 1): QueueDriver {
    const q = new QueueDriver({ concurrency, freezes: { ...berlin, ...over } });
    q.now = at;
    return q;
  }

  it('tests, but does not merge, until the freeze ends at the window edge; then merges', () => {
    const q = queueAt(friday);
    const run = q.startTesting(1);
    // The queue asks to be woken at the next edge: 22:00 Berlin.
    tickAt(q, '2026-03-20T20:30:00Z');
    tickAt(q, '2026-03-20T21:00:00Z');
    expect(q.eventTypes()).toEqual(['queue.frozen:']);
    expect(q.events()[0].freeze).toEqual({ reason: 'scheduled freeze', until: t('2026-03-23T05:00:00Z') });
    q.pass(run);
    expect(q.state(1)).toBe('TESTS_PASSED');
    expect(q.effectsOf('merge')).toEqual([]);
    tickAt(q, '2026-03-23T04:59:59.999Z');
    expect(q.effectsOf('merge')).toEqual([]);
    tickAt(q, '2026-03-23T05:00:00Z');
    expect(q.eventTypes()).toContain('queue.unfrozen:');
    expect(q.events().find((e) => e.type === 'queue.unfrozen')?.freeze?.reason).toBe('scheduled freeze');
    expect(q.effect('merge').prs.map((p) => p.number)).toEqual([1]);
  });

  it('wakes at the start and at the end of a freeze', () => {
    const q = queueAt(friday);
    q.send({ kind: 'tick' });
    expect(q.effectsOf('scheduleWakeup').map((e) => e.at)).toEqual([t('2026-03-20T21:00:00Z')]);
    tickAt(q, '2026-03-20T21:00:00Z');
    expect(q.effectsOf('scheduleWakeup').map((e) => e.at)).toEqual([t('2026-03-23T05:00:00Z')]);
  });

  it('with stopTesting starts no test run; an urgent PR and a PR with an exempt label still test and merge', () => {
    const q = queueAt(t('2026-03-21T12:00:00Z'), { stopTesting: true, exemptLabels: ['Hotfix'] });
    q.submit(1);
    expect(q.state(1)).toBe('PENDING');
    expect(q.effectsOf('createTestBranch')).toEqual([]);
    q.submit(2, { priority: 'urgent' });
    const urgent = q.effect('createTestBranch');
    expect(urgent.prs.map((p) => p.number)).toEqual([2]);
    q.built(urgent.runId);
    q.pass(urgent.runId);
    expect(q.effect('merge').prs.map((p) => p.number)).toEqual([2]);
    q.merged();
    expect(q.state(1)).toBe('PENDING');
  });

  it('a PR with an exempt label tests and merges during a freeze', () => {
    const q = queueAt(t('2026-03-21T12:00:00Z'), { stopTesting: true, exemptLabels: ['Hotfix'] });
    q.submit(3, { pr: { labels: ['hotfix'] } });
    const run = q.effect('createTestBranch');
    q.built(run.runId);
    q.pass(run.runId);
    expect(q.effect('merge').prs.map((p) => p.number)).toEqual([3]);
  });

  it('an exempt PR tested on top of a PR that is not exempt waits with it: the freeze lets no other PR through', () => {
    const q = queueAt(t('2026-03-21T12:00:00Z'), { exemptLabels: ['hotfix'] }, 2);
    const first = q.startTesting(1);
    const second = q.startTesting(3);
    q.send({ kind: 'prObserved', pr: { ...q.snapshot.entries[1], number: 3, labels: ['hotfix'] } as never });
    q.pass(first);
    q.pass(second);
    expect(q.state(3)).toBe('TESTS_PASSED');
    expect(q.effectsOf('merge')).toEqual([]);
  });

  it('a label added while frozen (prObserved) exempts the PR', () => {
    const q = queueAt(t('2026-03-21T12:00:00Z'), { stopTesting: true, exemptLabels: ['hotfix'] });
    q.submit(1);
    expect(q.effectsOf('createTestBranch')).toEqual([]);
    q.send({ kind: 'prObserved', pr: { ...q.snapshot.entries[0], number: 1, labels: ['hotfix'] } as never });
    expect(q.effect('createTestBranch').prs.map((p) => p.number)).toEqual([1]);
  });

  it('without freezes nothing changes and no queue event is emitted', () => {
    const q = new QueueDriver();
    const run = q.startTesting(1);
    q.pass(run);
    expect(q.eventTypes().filter((e) => e.startsWith('queue.'))).toEqual([]);
    expect(q.effectsOf('merge')).toHaveLength(1);
  });

  it('setting a one-off freeze freezes at once; removing it unfreezes', () => {
    const q = new QueueDriver();
    const now = q.now;
    const freezes = settings({
      oneOff: [
        { from: new Date(now).toISOString(), until: new Date(now + 3_600_000).toISOString(), reason: 'release' },
      ],
    });
    q.send({ kind: 'updateConfig', patch: { freezes } });
    expect(q.events().map((e) => [e.type, e.freeze?.reason])).toEqual([['queue.frozen', 'release']]);
    const run = q.startTesting(1);
    q.pass(run);
    expect(q.effectsOf('merge')).toEqual([]);
    q.send({ kind: 'updateConfig', patch: { freezes: null } });
    expect(q.eventTypes()).toContain('queue.unfrozen:');
    expect(q.effectsOf('merge')).toHaveLength(1);
  });

  it('refuses invalid freezes, naming the field', () => {
    const q = new QueueDriver();
    const r = q.reject({
      kind: 'updateConfig',
      patch: {
        freezes: settings({ windows: [{ days: ['sat'], start: '00:00', end: '24:00', timeZone: 'Nowhere/City' }] }),
      },
    });
    expect(r.message).toContain('freezes.windows[0].timeZone');
  });
});
