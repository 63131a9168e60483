/** Metrics of contract §7, computed from the store. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuthContext, QueueKey } from '../../src/app/service-port.js';
import type { ServiceError } from '../../src/lib/errors.js';
import { createQueueFixture, type TestService } from '../helpers/service.js';

const REPO = 'github.com/acme/web';
let t: TestService;
let ctx: AuthContext;
let key: QueueKey;

beforeEach(async () => {
  ({ t, ctx, key } = await createQueueFixture());
});
afterEach(() => t.close());

const L = 'repo="acme/web",branch="main",queue_type="main"';
const value = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
};

describe('metrics', () => {
  it('reports depth, awaiting mergeability and testing slots now', async () => {
    t.forge.openPr(REPO, { number: 1 });
    t.forge.openPr(REPO, { number: 2 });
    t.forge.openPr(REPO, { number: 3, mergeability: 'not_mergeable' });
    for (const n of [1, 2, 3]) await t.service.submitPullRequest(ctx, key, { prNumber: n });
    await t.runEffects();
    const text = await t.service.metrics(ctx, {});
    expect(text).toContain('# HELP mq_depth_current PRs currently in the queue');
    expect(text).toContain('# TYPE mq_pr_wait_duration_1h_seconds histogram');
    expect(value(text, `mq_depth_current{${L}}`)).toBe(2);
    expect(value(text, `mq_awaiting_mergeability{${L}}`)).toBe(1);
    expect(value(text, `mq_testing_slots_active{${L}}`)).toBe(1);
    expect(value(text, 'mq_testing_slots_active{repo="acme/web",branch="main",queue_type="bisection"}')).toBe(0);
  });

  it('reports the last hour: conclusions, restarts and durations in the contract buckets', async () => {
    t.forge.openPr(REPO, { number: 1 });
    await t.service.submitPullRequest(ctx, key, { prNumber: 1 });
    await t.runEffects();
    const firstRun = (await t.service.getSubmittedPullRequest(ctx, key, { number: 1 })).entry.runId!;
    t.clock.advance(120_000);
    await t.service.restartTestsOnPullRequest(ctx, key, 1);
    await t.runEffects();
    const runId = (await t.service.getSubmittedPullRequest(ctx, key, { number: 1 })).entry.runId!;
    expect(runId).not.toBe(firstRun);
    t.clock.advance(400_000);
    await t.ci.pass(runId);
    await t.runEffects();

    const text = await t.service.metrics(ctx, { repo: key.repo });
    expect(value(text, `mq_pr_conclusions_1h_total{${L},conclusion="merged"}`)).toBe(1);
    expect(value(text, `mq_pr_conclusions_1h_total{${L},conclusion="failed"}`)).toBe(0);
    expect(value(text, `mq_pr_restarts_1h_total{${L}}`)).toBe(1);
    // Two test spells: 120 s (restarted) and 400 s (passed).
    expect(value(text, `mq_pr_test_duration_1h_seconds_count{${L}}`)).toBe(2);
    expect(value(text, `mq_pr_test_duration_1h_seconds_sum{${L}}`)).toBe(520);
    expect(value(text, `mq_pr_test_duration_1h_seconds_bucket{le="300",${L}}`)).toBe(1);
    expect(value(text, `mq_pr_test_duration_1h_seconds_bucket{le="600",${L}}`)).toBe(2);
    expect(value(text, `mq_pr_time_in_queue_1h_seconds_count{${L},conclusion="merged"}`)).toBe(1);
    expect(value(text, `mq_pr_time_in_queue_1h_seconds_sum{${L},conclusion="merged"}`)).toBe(520);

    t.clock.advance(3_600_001);
    const later = await t.service.metrics(ctx, {});
    expect(value(later, `mq_pr_conclusions_1h_total{${L},conclusion="merged"}`)).toBe(0);
    expect(value(later, `mq_pr_test_duration_1h_seconds_count{${L}}`)).toBe(0);
  });

  it("is limited to the caller's org; an unknown repo filter is a 404", async () => {
    const { ctx: other } = await t.createOrg('other');
    expect(await t.service.metrics(other, {})).not.toContain('acme/web');
    const err = await t.service
      .metrics(ctx, { repo: { host: 'github.com', owner: 'acme', name: 'nope' } })
      .catch((e: unknown) => e);
    expect((err as ServiceError).code).toBe('REPO_NOT_FOUND');
  });
});
