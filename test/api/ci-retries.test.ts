/**
 * CI that misbehaves through the HTTP API (docs/api.md "CI that misbehaves (extension)"): the settings
 * `ciRetries`, `requiredStatusStartTimeoutMinutes` and `testingTimeoutMinutes: "auto"` in updateQueue
 * and getQueue; reportStatus with `cancelled`; statuses of a retried run; the `test_run.retry_requested`
 * event; the reasons and the metrics (real service and store, fake forge and scripted CI).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiHarness, errorOf, json, type ApiHarness } from './api-harness.js';

let h: ApiHarness;
beforeEach(async () => {
  h = await createApiHarness();
  await h.queueWithPrs(2);
});
afterEach(() => h.close());

const update = (fields: Record<string, unknown>) => h.post('/v1/updateQueue', h.body(fields));
const getQueue = async () => json(await h.post('/v1/getQueue', h.body()));
const getPr = async (number: number) =>
  json(await h.post('/v1/getSubmittedPullRequest', h.body({ pr: { number }, includeTimeline: true })));
const report = (testRunId: string, state: string, description?: string) =>
  h.post('/v1/reportStatus', {
    repo: h.body().repo,
    testRunId,
    context: 'greenline/ci',
    state,
    ...(description ? { description } : {}),
  });
const submit = async (number: number) => {
  const res = await h.post('/v1/submitPullRequest', h.body({ pr: { number } }));
  expect(res.statusCode, res.body).toBe(200);
  await h.t.runEffects();
};
const eventsOf = async (type: string) =>
  (await h.t.db.selectFrom('queue_events').selectAll().where('type', '=', type).execute()).map(
    (r) => JSON.parse(r.payload) as Record<string, unknown>,
  );

describe('settings', () => {
  it('are absent from getQueue while off, as Trunk answers', async () => {
    const q = await getQueue();
    expect(q.testingTimeoutMinutes).toBe(300);
    for (const k of ['ciRetries', 'requiredStatusStartTimeoutMinutes', 'testingTimeoutMinutesInForce'])
      expect(q).not.toHaveProperty(k);
  });

  it('are set by updateQueue and answered by getQueue', async () => {
    const res = await update({ ciRetries: 2, requiredStatusStartTimeoutMinutes: 15, testingTimeoutMinutes: 90 });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res)).toMatchObject({ ciRetries: 2, requiredStatusStartTimeoutMinutes: 15, testingTimeoutMinutes: 90 });
    expect(await getQueue()).toMatchObject({ ciRetries: 2, requiredStatusStartTimeoutMinutes: 15 });
  });

  it('testingTimeoutMinutes "auto" keeps the number in force until runs are known; a number turns it off', async () => {
    expect((await update({ testingTimeoutMinutes: 90 })).statusCode).toBe(200);
    const res = await update({ testingTimeoutMinutes: 'AUTO' });
    expect(res.statusCode, res.body).toBe(200);
    expect(await getQueue()).toMatchObject({ testingTimeoutMinutes: 'auto', testingTimeoutMinutesInForce: 90 });
    expect((await update({ testingTimeoutMinutes: 45 })).statusCode).toBe(200);
    const q = await getQueue();
    expect(q.testingTimeoutMinutes).toBe(45);
    expect(q).not.toHaveProperty('testingTimeoutMinutesInForce');
  });

  it.each([
    [{ ciRetries: 6 }, 'ciRetries', 'an integer from 0 to 5'],
    [{ ciRetries: -1 }, 'ciRetries', 'an integer from 0 to 5'],
    [{ ciRetries: 'two' }, 'ciRetries', 'an integer from 0 to 5'],
    [{ requiredStatusStartTimeoutMinutes: -5 }, 'requiredStatusStartTimeoutMinutes', 'an integer of minutes >= 0'],
    [{ testingTimeoutMinutes: 'soon' }, 'testingTimeoutMinutes', 'a positive integer of minutes, or "auto"'],
    [{ testingTimeoutMinutes: 0 }, 'testingTimeoutMinutes', 'a positive integer of minutes, or "auto"'],
  ])('%j → 400 naming the field and what it takes', async (fields, field, expected) => {
    const e = errorOf(await update(fields));
    expect(e.status).toBe(400);
    expect(e.message).toContain(field);
    expect(e.message).toContain(expected);
  });
});

describe('retries of a run through reportStatus', () => {
  it('a failure is retried: retry_requested event, statuses of the same run accepted again, flaky pass merges', async () => {
    expect((await update({ ciRetries: 1 })).statusCode).toBe(200);
    await submit(1);
    const [runId] = h.t.ci.startedRunIds();
    expect((await report(runId!, 'failure', 'flaky test')).statusCode).toBe(200);
    await h.t.runEffects();
    expect((await getPr(1)).state).toBe('TESTING');
    // The built-in (scripted) CI is asked to run again, attempt 1, on the same commit.
    expect(h.t.ci.started.map((s) => [s.runId, s.attempt ?? 0])).toEqual([
      [runId, 0],
      [runId, 1],
    ]);
    expect(await eventsOf('test_run.retry_requested')).toMatchObject([
      { runId, reason: 'TEST_RUN_REQUIRED_STATUS_FAILED', prNumbers: [1] },
    ]);
    const details = json(await h.post('/v1/getMergeQueueTestingDetails', h.body({ testRunId: runId })));
    expect(details.statuses ?? []).toEqual([]);
    const during = json(await h.post('/v1/getQueueActivity', h.body()));
    expect(during).toMatchObject({ ciRetries: 1, testingTimeoutMinutes: 300, testingTimeoutMinutesInForce: 300 });
    expect(during.testRuns).toMatchObject([{ testRunId: runId, retries: 1 }]);
    expect((await report(runId!, 'success')).statusCode).toBe(200);
    await h.t.runEffects();
    const pr = await getPr(1);
    expect(pr.state).toBe('MERGED');
    expect(pr.timeline.map((t: { reason: string }) => t.reason)).toContain('TEST_RUN_PASSED_AFTER_RETRY');
    expect(pr.timeline.find((t: { reason: string }) => t.reason === 'TEST_RUN_PASSED_AFTER_RETRY').message).toBe(
      'Tests passed: its tests passed when run again on the same commit after a failure or cancellation (flaky); it merges once the PRs ahead of it have merged.',
    );
    const after = json(await h.post('/v1/getQueueActivity', h.body()));
    expect(after.recentPullRequests).toMatchObject([{ prNumber: 1, state: 'MERGED', flaky: true }]);
    const metrics = (await h.get('/v1/getMergeQueueMetrics')).body;
    expect(metrics).toMatch(/greenline_ci_retries_total\{repo="acme\/web",branch="main"\} 1/);
    expect(metrics).toMatch(/greenline_ci_flaky_passes_total\{repo="acme\/web",branch="main"\} 1/);
  });

  it('cancelled is not failed: retried even with ciRetries 0; cancelled again fails TEST_RUN_CANCELLED_BY_CI', async () => {
    await submit(1);
    const [runId] = h.t.ci.startedRunIds();
    expect((await report(runId!, 'CANCELLED')).statusCode).toBe(200);
    await h.t.runEffects();
    expect((await getPr(1)).state).toBe('TESTING');
    expect(await eventsOf('test_run.retry_requested')).toMatchObject([{ reason: 'TEST_RUN_CANCELLED_BY_CI' }]);
    expect((await report(runId!, 'cancelled', 'stopped by a newer push')).statusCode).toBe(200);
    await h.t.runEffects();
    const pr = await getPr(1);
    expect(pr.state).toBe('FAILED');
    expect(pr.reason).toMatchObject({
      code: 'TEST_RUN_CANCELLED_BY_CI',
      message: 'Failed: CI cancelled its checks, and cancelled them again when they were run once more.',
      detail: 'required status "greenline/ci" reported cancelled: stopped by a newer push',
    });
  });

  it('a required status never reported fails the run after the start timeout, naming it', async () => {
    expect(
      (await update({ requiredStatusStartTimeoutMinutes: 10, requiredStatuses: ['build', 'e2e'] })).statusCode,
    ).toBe(200);
    await submit(1);
    const runId = (await getPr(1)).reason.testRunId;
    expect(runId).toEqual(expect.any(String));
    expect(
      (await h.post('/v1/reportStatus', { repo: h.body().repo, testRunId: runId, context: 'build', state: 'pending' }))
        .statusCode,
    ).toBe(200);
    await h.t.runEffects();
    h.t.clock.advance(10 * 60_000);
    await h.t.runEffects();
    const pr = await getPr(1);
    expect(pr.state).toBe('FAILED');
    expect(pr.reason).toMatchObject({
      code: 'REQUIRED_STATUS_NEVER_STARTED',
      detail: 'required status "e2e" not reported within 10 minutes',
    });
  });
});
