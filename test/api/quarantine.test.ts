/**
 * Quarantine of required statuses through the HTTP API (docs/api.md "Flaky checks and quarantine"):
 * the settings in updateQueue and getQueue, a quarantined status that fails without failing the run,
 * the per-status figures in getQueue, the queue event and the metrics (real service and store, fake
 * forge and scripted CI).
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
const getPr = async (number: number) => json(await h.post('/v1/getSubmittedPullRequest', h.body({ pr: { number } })));
const report = (testRunId: string, context: string, state: string) =>
  h.post('/v1/reportStatus', { repo: h.body().repo, testRunId, context, state });
const eventsOf = async (type: string) =>
  (await h.t.db.selectFrom('queue_events').selectAll().where('type', '=', type).execute()).map(
    (r) => JSON.parse(r.payload) as Record<string, unknown>,
  );

describe('settings', () => {
  it('are absent from getQueue while unused, as Trunk answers', async () => {
    const q = await getQueue();
    for (const k of [
      'quarantinedStatuses',
      'autoQuarantine',
      'autoQuarantineThreshold',
      'autoQuarantineMinResults',
      'statusQuarantine',
    ])
      expect(q).not.toHaveProperty(k);
  });

  it('are set by updateQueue and answered by getQueue, with each status quarantined and why', async () => {
    const res = await update({
      quarantinedStatuses: ['lint'],
      autoQuarantine: 'ON',
      autoQuarantineThreshold: 0.2,
      autoQuarantineMinResults: 10,
    });
    expect(res.statusCode, res.body).toBe(200);
    await h.t.runEffects();
    expect(await getQueue()).toMatchObject({
      quarantinedStatuses: ['lint'],
      autoQuarantine: 'on',
      autoQuarantineThreshold: 0.2,
      autoQuarantineMinResults: 10,
      statusQuarantine: [
        {
          status: 'lint',
          quarantined: true,
          quarantinedBy: 'setting',
          quarantineReason: "listed in the queue's quarantinedStatuses setting",
          results: 0,
          flakyPasses: 0,
        },
      ],
    });
    expect(await eventsOf('queue.status_quarantined')).toMatchObject([
      { quarantine: { status: 'lint', automatic: false } },
    ]);
    expect((await update({ quarantinedStatuses: [], autoQuarantine: 'off' })).statusCode).toBe(200);
    await h.t.runEffects();
    const q = await getQueue();
    expect(q).not.toHaveProperty('quarantinedStatuses');
    expect(q).not.toHaveProperty('autoQuarantine');
    expect(await eventsOf('queue.status_quarantine_lifted')).toMatchObject([
      { quarantine: { status: 'lint', automatic: false } },
    ]);
  });

  it.each([
    [{ quarantinedStatuses: 'lint' }, 'quarantinedStatuses'],
    [{ quarantinedStatuses: [''] }, 'quarantinedStatuses'],
    [{ autoQuarantine: 'maybe' }, 'autoQuarantine'],
    [{ autoQuarantineThreshold: 0 }, 'autoQuarantineThreshold'],
    [{ autoQuarantineThreshold: 2 }, 'autoQuarantineThreshold'],
    [{ autoQuarantineMinResults: 0 }, 'autoQuarantineMinResults'],
    [{ autoQuarantineMinResults: 51 }, 'autoQuarantineMinResults'],
  ])('%j → 400 naming the field', async (fields, field) => {
    const e = errorOf(await update(fields));
    expect(e.status).toBe(400);
    expect(e.message).toContain(field);
  });
});

describe('a quarantined status does not gate', () => {
  it('its failure neither fails the run nor blocks the merge; it is counted and shown', async () => {
    const set = await update({ requiredStatuses: ['greenline/ci', 'lint'], quarantinedStatuses: ['lint'] });
    expect(set.statusCode, set.body).toBe(200);
    expect((await h.post('/v1/submitPullRequest', h.body({ pr: { number: 1 } }))).statusCode).toBe(200);
    await h.t.runEffects();
    const [runId] = h.t.ci.startedRunIds();
    expect((await report(runId!, 'lint', 'failure')).statusCode).toBe(200);
    await h.t.runEffects();
    expect((await getPr(1)).state).toBe('TESTING');
    expect((await report(runId!, 'greenline/ci', 'success')).statusCode).toBe(200);
    await h.t.runEffects();
    expect((await getPr(1)).state).toBe('MERGED');
    expect((await getQueue()).statusQuarantine).toMatchObject([
      { status: 'greenline/ci', results: 1, flakyPasses: 0, ignoredFailures: 0, quarantined: false },
      { status: 'lint', results: 1, ignoredFailures: 1, recentFlakyRate: 1, quarantined: true },
    ]);
    const metrics = (await h.get('/v1/getMergeQueueMetrics')).body;
    expect(metrics).toMatch(
      /greenline_status_quarantined\{repo="acme\/web",branch="main",status="lint",by="setting"\} 1/,
    );
    expect(metrics).toMatch(/greenline_status_results_total\{repo="acme\/web",branch="main",status="lint"\} 1/);
  });

  it('a failure of a gating status still fails the run', async () => {
    expect(
      (await update({ requiredStatuses: ['greenline/ci', 'lint'], quarantinedStatuses: ['lint'] })).statusCode,
    ).toBe(200);
    expect((await h.post('/v1/submitPullRequest', h.body({ pr: { number: 1 } }))).statusCode).toBe(200);
    await h.t.runEffects();
    const [runId] = h.t.ci.startedRunIds();
    expect((await report(runId!, 'greenline/ci', 'failure')).statusCode).toBe(200);
    await h.t.runEffects();
    expect((await getPr(1)).state).toBe('FAILED');
  });
});

describe('flaky passes per status', () => {
  it('a status that failed and passed on retry is counted as a flaky pass of that status', async () => {
    expect((await update({ ciRetries: 1 })).statusCode).toBe(200);
    expect((await h.post('/v1/submitPullRequest', h.body({ pr: { number: 1 } }))).statusCode).toBe(200);
    await h.t.runEffects();
    const [runId] = h.t.ci.startedRunIds();
    expect((await report(runId!, 'greenline/ci', 'failure')).statusCode).toBe(200);
    await h.t.runEffects();
    expect((await report(runId!, 'greenline/ci', 'success')).statusCode).toBe(200);
    await h.t.runEffects();
    expect((await getPr(1)).state).toBe('MERGED');
    expect((await getQueue()).statusQuarantine).toMatchObject([
      { status: 'greenline/ci', results: 1, flakyPasses: 1, recentFlakyRate: 1, quarantined: false },
    ]);
    const metrics = (await h.get('/v1/getMergeQueueMetrics')).body;
    expect(metrics).toMatch(
      /greenline_status_flaky_passes_total\{repo="acme\/web",branch="main",status="greenline\/ci"\} 1/,
    );
  });
});
