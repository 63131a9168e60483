/**
 * Flaky is a property of a check: per-status flaky passes and results, `quarantinedStatuses`, and
 * automatic quarantine with its lift, each announced (quarantine.ts).
 */
import { describe, expect, it } from 'vitest';
import {
  statusFlakiness,
  validateConfigPatch,
  type QueueConfig,
  type QueueEventPayload,
} from '../../src/engine/index.js';
import { QueueDriver } from './queue-driver.js';

const MIN = 60_000;
const REQUIRED = ['build', 'lint'];

/**
 * Tests PR `n` with CI on `build` and `lint`: `failFirst` statuses fail the first attempt, `failAgain`
 * the retry (a failure that holds), `ignored` fail without deciding (quarantined); then it merges if it passed.
 */
function cycle(
  q: QueueDriver,
  n: number,
  over: { failFirst?: string[]; failAgain?: string[]; ignored?: string[] } = {},
): QueueEventPayload[] {
  const r = q.startTesting(n);
  q.send({ kind: 'ciStarted', runId: r, requiredStatuses: REQUIRED });
  if (over.failFirst) q.send({ kind: 'ciResult', runId: r, outcome: 'failure', failedStatuses: over.failFirst });
  if (over.failAgain) {
    q.send({ kind: 'ciResult', runId: r, outcome: 'failure', failedStatuses: over.failAgain });
    return q.events();
  }
  q.send({ kind: 'ciResult', runId: r, outcome: 'success', ...(over.ignored ? { failedStatuses: over.ignored } : {}) });
  const events = q.events();
  q.merged();
  return events;
}

const stats = (q: QueueDriver, status: string) => statusFlakiness(q.snapshot).find((s) => s.status === status);
const quarantineEvents = (events: QueueEventPayload[]) =>
  events.filter((e) => e.type.startsWith('queue.status_quarantine'));

describe('per-status flaky passes and results', () => {
  it('a status that failed and passed on retry counts a flaky pass; the others a clean result', () => {
    const q = new QueueDriver({ ciRetries: 1 });
    cycle(q, 1, { failFirst: ['lint'] });
    expect(q.entry(1)).toMatchObject({ state: 'MERGED' });
    expect(stats(q, 'lint')).toMatchObject({ results: 1, flakyPasses: 1, recentFlakyRate: 1, quarantined: false });
    expect(stats(q, 'build')).toMatchObject({ results: 1, flakyPasses: 0, recentFlakyRate: 0 });
    cycle(q, 2);
    expect(stats(q, 'lint')).toMatchObject({ results: 2, flakyPasses: 1, recentFlakyRate: 0.5 });
  });

  it('a failure that holds on retry is a result, not a flaky pass', () => {
    const q = new QueueDriver({ ciRetries: 1 });
    cycle(q, 1, { failFirst: ['build'], failAgain: ['build'] });
    expect(q.entry(1)).toMatchObject({ state: 'FAILED' });
    expect(stats(q, 'build')).toMatchObject({ results: 1, flakyPasses: 0, recentFlakyRate: 0 });
    expect(stats(q, 'lint')).toBeUndefined();
  });

  it('runs whose CI names no statuses count nothing (the simulator, older CI adapters)', () => {
    const q = new QueueDriver({ ciRetries: 1 });
    const r = q.startTesting(1);
    q.fail(r);
    q.pass(r);
    expect(statusFlakiness(q.snapshot)).toEqual([]);
    expect(q.snapshot.internal.flakyPasses).toBe(1);
  });

  it('the counts live in the engine state and survive a round trip through JSON (a restart)', () => {
    const q = new QueueDriver({ ciRetries: 1 });
    cycle(q, 1, { failFirst: ['lint'] });
    q.snapshot = JSON.parse(JSON.stringify(q.snapshot));
    cycle(q, 2, { failFirst: ['lint'] });
    expect(stats(q, 'lint')).toMatchObject({ results: 2, flakyPasses: 2 });
  });
});

describe('quarantinedStatuses', () => {
  it('a quarantine by the setting is announced, and so is its end', () => {
    const q = new QueueDriver();
    q.send({ kind: 'updateConfig', patch: { quarantinedStatuses: ['lint'] } });
    expect(quarantineEvents(q.events())).toMatchObject([
      {
        type: 'queue.status_quarantined',
        prNumbers: [],
        quarantine: { status: 'lint', automatic: false, reason: "listed in the queue's quarantinedStatuses setting" },
      },
    ]);
    expect(stats(q, 'lint')).toMatchObject({ quarantined: true, quarantinedBy: 'setting' });
    q.tick();
    q.send({ kind: 'updateConfig', patch: { quarantinedStatuses: [] } });
    expect(quarantineEvents(q.events())).toMatchObject([
      { type: 'queue.status_quarantine_lifted', quarantine: { status: 'lint', automatic: false } },
    ]);
  });

  it('a quarantined status that failed on a passing run is counted as an ignored failure', () => {
    const q = new QueueDriver({ quarantinedStatuses: ['lint'] });
    cycle(q, 1, { ignored: ['lint'] });
    expect(q.entry(1)).toMatchObject({ state: 'MERGED' });
    expect(stats(q, 'lint')).toMatchObject({ results: 1, flakyPasses: 0, ignoredFailures: 1, recentFlakyRate: 1 });
  });

  it('a quarantined status is not waited for by requiredStatusStartTimeoutMinutes', () => {
    const q = new QueueDriver({ requiredStatusStartTimeoutMinutes: 10, quarantinedStatuses: ['lint'] });
    const r = q.startTesting(1);
    const started = q.now;
    q.send({ kind: 'ciStarted', runId: r, requiredStatuses: REQUIRED });
    q.send({ kind: 'ciStatusSeen', runId: r, contexts: ['build'] });
    q.send({ kind: 'tick', at: started + 11 * MIN });
    expect(q.state(1)).toBe('TESTING');
  });

  it('validation names the field', () => {
    expect(validateConfigPatch({ quarantinedStatuses: 'lint' })).toMatch(/^quarantinedStatuses must be a list/);
    expect(validateConfigPatch({ quarantinedStatuses: [''] })).toMatch(/^quarantinedStatuses/);
    expect(validateConfigPatch({ autoQuarantine: 'yes' })).toMatch(/^autoQuarantine must be one of off, on/);
    expect(validateConfigPatch({ autoQuarantineThreshold: 0 })).toMatch(/^autoQuarantineThreshold must be a number/);
    expect(validateConfigPatch({ autoQuarantineThreshold: 1.5 })).toMatch(/^autoQuarantineThreshold/);
    expect(validateConfigPatch({ autoQuarantineMinResults: 0 })).toMatch(/^autoQuarantineMinResults/);
    expect(validateConfigPatch({ autoQuarantineMinResults: 51 })).toMatch(/^autoQuarantineMinResults/);
    expect(validateConfigPatch({ autoQuarantineThreshold: 0.25, autoQuarantineMinResults: 10 })).toBeNull();
  });
});

describe('autoQuarantine', () => {
  const auto: Partial<QueueConfig> = {
    ciRetries: 1,
    autoQuarantine: 'on',
    autoQuarantineThreshold: 0.3,
    autoQuarantineMinResults: 5,
  };

  it('quarantines a status flaky at or over the threshold once it has enough results, saying why', () => {
    const q = new QueueDriver(auto);
    cycle(q, 1, { failFirst: ['lint'] });
    cycle(q, 2);
    cycle(q, 3, { failFirst: ['lint'] });
    cycle(q, 4);
    expect(stats(q, 'lint')).toMatchObject({ quarantined: false, recentResults: 4 });
    expect(quarantineEvents(cycle(q, 5))).toMatchObject([
      {
        type: 'queue.status_quarantined',
        quarantine: {
          status: 'lint',
          automatic: true,
          reason: 'flaky in 2 of its last 5 results (40%), at or over the threshold of 30%',
        },
      },
    ]);
    expect(stats(q, 'lint')).toMatchObject({
      quarantined: true,
      quarantinedBy: 'automatic',
      recentResults: 0,
      flakyPasses: 2,
      results: 5,
    });
    expect(stats(q, 'build')).toMatchObject({ quarantined: false });
  });

  it('stays quarantined while it keeps failing, and is lifted when newer results fall under half the threshold', () => {
    const q = new QueueDriver(auto);
    for (let n = 1; n <= 5; n++) cycle(q, n, n % 2 === 1 ? { failFirst: ['lint'] } : {});
    expect(stats(q, 'lint')).toMatchObject({ quarantined: true });
    for (let n = 6; n <= 10; n++) cycle(q, n, n <= 7 ? { ignored: ['lint'] } : {});
    expect(stats(q, 'lint')).toMatchObject({ quarantined: true, recentResults: 5, recentFlakyRate: 0.4 });
    // 2 flaky of the newer results: under half the threshold (15%) from 14 results on.
    for (let n = 11; n <= 17; n++) cycle(q, n);
    expect(stats(q, 'lint')).toMatchObject({ quarantined: true, recentResults: 12 });
    for (let n = 18; n <= 19; n++) cycle(q, n);
    expect(stats(q, 'lint')).toMatchObject({ quarantined: false, quarantinedBy: null });
  });

  it('announces the lift with its figures', () => {
    const q = new QueueDriver(auto);
    for (let n = 1; n <= 5; n++) cycle(q, n, n % 2 === 1 ? { failFirst: ['lint'] } : {});
    for (let n = 6; n <= 9; n++) cycle(q, n);
    expect(stats(q, 'lint')).toMatchObject({ quarantined: true });
    expect(quarantineEvents(cycle(q, 10))).toMatchObject([
      {
        type: 'queue.status_quarantine_lifted',
        quarantine: {
          status: 'lint',
          automatic: true,
          reason: 'flaky in 0 of its 5 results since it was quarantined (0%), under half the threshold of 30%',
        },
      },
    ]);
  });

  it('never quarantines the last status that gates', () => {
    const q = new QueueDriver(auto);
    for (let n = 1; n <= 5; n++) cycle(q, n, { failFirst: ['build', 'lint'] });
    const all = statusFlakiness(q.snapshot);
    expect(all.filter((s) => s.quarantined)).toHaveLength(1);
    expect(all.find((s) => !s.quarantined)).toMatchObject({ recentFlakyRate: 1 });
  });

  it('turning the mode off lifts its quarantines, saying so', () => {
    const q = new QueueDriver(auto);
    for (let n = 1; n <= 5; n++) cycle(q, n, n % 2 === 1 ? { failFirst: ['lint'] } : {});
    q.send({ kind: 'updateConfig', patch: { autoQuarantine: 'off' } });
    expect(quarantineEvents(q.events())).toMatchObject([
      {
        type: 'queue.status_quarantine_lifted',
        quarantine: { status: 'lint', automatic: true, reason: 'automatic quarantine was turned off' },
      },
    ]);
    expect(stats(q, 'lint')).toMatchObject({ quarantined: false });
  });

  it('off (the default): flaky statuses are counted, never quarantined', () => {
    const q = new QueueDriver({ ciRetries: 1 });
    for (let n = 1; n <= 25; n++) cycle(q, n, { failFirst: ['lint'] });
    expect(stats(q, 'lint')).toMatchObject({ flakyPasses: 25, quarantined: false });
  });
});
