/**
 * Trunk's metric set (contract §7) and greenline's series, scraped over HTTP after a scripted
 * scenario on the real service with fake forge, CI and time: a batch that fails and is bisected, a
 * merge, a restart, a cancel, a PR waiting for mergeability and one still testing. Then the hour
 * slides past all of it. Every expected number is worked out from the script.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SLUG } from '../api/api-harness.js';
import { testDatabases, type TestDatabase } from '../helpers/databases.js';
import { createMetricsHarness, type MetricsHarness } from './scrape.js';

const databases = await testDatabases();
const S = 1000;
const main = { repo: 'acme/web', branch: 'main', queue_type: 'main' };
const bisection = { ...main, queue_type: 'bisection' };

/** `_bucket` counts by `le`, `_sum` and `_count` of one histogram label set. */
function histogram(x: Awaited<ReturnType<MetricsHarness['scrape']>>, name: string, labels: Record<string, string>) {
  const buckets = Object.fromEntries(
    x
      .series(`${name}_bucket`)
      .filter(
        (s) =>
          Object.entries(labels).every(([k, v]) => s.labels[k] === v) &&
          Object.keys(s.labels).length === Object.keys(labels).length + 1,
      )
      .map((s) => [s.labels.le, s.value]),
  );
  return { buckets, sum: x.value(`${name}_sum`, labels), count: x.value(`${name}_count`, labels) };
}

describe.each(databases.map((d) => [d.name, d] as [string, TestDatabase]))(
  'metrics scraped on %s',
  (_name, database) => {
    let m: MetricsHarness;
    beforeEach(async () => {
      m = await createMetricsHarness(database.name === 'sqlite' ? undefined : await database.url());
    });
    afterEach(() => m.close());
    afterAll(() => database.cleanup());

    it('reports a scripted hour exactly, then lets it slide out of the window', async () => {
      const { h, ctx, key } = m;
      const { t } = h;
      const svc = t.service;
      const runOf = async (n: number) => (await svc.getSubmittedPullRequest(ctx, key, { number: n })).entry.runId!;
      await svc.createQueue(ctx, key, { concurrency: 1 });
      await svc.updateQueue(ctx, key, { batch: true, batchingMinSize: 2, bisectionConcurrency: 2 });
      for (const number of [1, 2, 3, 4, 5])
        t.forge.openPr(SLUG, { number, mergeability: number === 4 ? 'not_mergeable' : 'mergeable' });

      // 0 s: PRs 1 and 2 fill a batch; its test branch is built at 90 s.
      await svc.submitPullRequest(ctx, key, { prNumber: 1 });
      await svc.submitPullRequest(ctx, key, { prNumber: 2 });
      t.clock.advance(90 * S);
      await t.runEffects();
      // 690 s: the batch fails; it is bisected at once into [1] and [2], each tested on its own.
      t.clock.advance(600 * S);
      await t.ci.fail(await runOf(1));
      await t.runEffects();
      // 1110 s: [1] passes: nothing queued behind it was tested without it, so its bisection run is
      // PR 1's test and PR 1 merges on it; [2] fails: culprit.
      t.clock.advance(420 * S);
      await t.ci.pass(await runOf(1));
      await t.ci.fail(await runOf(2));
      await t.runEffects();
      expect((await svc.getSubmittedPullRequest(ctx, key, { number: 1 })).entry.state).toBe('MERGED');
      t.clock.advance(300 * S);
      // PR 3 (alone) tests from 1410 s, is restarted at 1510 s and cancelled at 1560 s.
      await svc.submitPullRequest(ctx, key, { prNumber: 3, noBatch: true });
      await t.runEffects();
      t.clock.advance(100 * S);
      await svc.restartTestsOnPullRequest(ctx, key, 3);
      await t.runEffects();
      t.clock.advance(50 * S);
      await svc.cancelPullRequest(ctx, key, 3);
      // 1560 s: PR 4 is not mergeable; PR 5 (alone) waits 30 s for its test branch and stays in testing.
      await svc.submitPullRequest(ctx, key, { prNumber: 4 });
      await svc.submitPullRequest(ctx, key, { prNumber: 5, noBatch: true });
      t.clock.advance(30 * S);
      await t.runEffects();

      const x = await m.scrape();
      expect(x.families.get('mq_depth_current')).toEqual({ help: 'PRs currently in the queue', type: 'gauge' });
      expect(x.families.get('mq_awaiting_mergeability')).toEqual({
        help: 'Number of PRs currently awaiting mergeability',
        type: 'gauge',
      });
      expect(x.families.get('mq_testing_slots_active')).toEqual({
        help: 'PRs currently in TESTING state',
        type: 'gauge',
      });
      expect(x.families.get('mq_pr_conclusions_1h_total')).toEqual({
        help: 'PRs exiting the queue in last hour',
        type: 'gauge',
      });
      expect(x.families.get('mq_pr_restarts_1h_total')).toEqual({ help: 'PR restarts in last hour', type: 'gauge' });
      for (const name of [
        'mq_pr_wait_duration_1h_seconds',
        'mq_pr_test_duration_1h_seconds',
        'mq_pr_time_in_queue_1h_seconds',
        'greenline_batch_size_1h',
      ]) {
        expect(x.families.get(name)?.type, name).toBe('histogram');
      }
      for (const name of [
        'greenline_ci_runs_started_1h_total',
        'greenline_ci_runs_per_merged_pr_1h',
        'greenline_bisection_runs_1h_total',
        'greenline_lane_depth',
      ]) {
        expect(x.families.get(name)?.type, name).toBe('gauge');
      }

      // Now: PR 5 testing in the main queue, PR 4 awaiting mergeability, no bisection left.
      expect(x.value('mq_depth_current', main)).toBe(1);
      expect(x.value('mq_depth_current', bisection)).toBe(0);
      expect(x.value('mq_awaiting_mergeability', main)).toBe(1);
      expect(x.value('mq_awaiting_mergeability', bisection)).toBe(0);
      expect(x.value('mq_testing_slots_active', main)).toBe(1);
      expect(x.value('mq_testing_slots_active', bisection)).toBe(0);

      // Conclusions: PR 3 cancelled in the main queue; PR 1 merged on its bisection run and PR 2
      // failed in the bisection.
      const conclusions = (labels: Record<string, string>) =>
        ['merged', 'failed', 'cancelled'].map((conclusion) =>
          x.value('mq_pr_conclusions_1h_total', { ...labels, conclusion }),
        );
      expect(conclusions(main)).toEqual([0, 0, 1]);
      expect(conclusions(bisection)).toEqual([1, 1, 0]);
      // Restarts: PR 3 by the API (main); none in the bisection.
      expect(x.value('mq_pr_restarts_1h_total', main)).toBe(1);
      expect(x.value('mq_pr_restarts_1h_total', bisection)).toBe(0);

      // Waits, main: PRs 1 and 2 90 s each, PR 3 0 s twice, PR 5 30 s.
      expect(histogram(x, 'mq_pr_wait_duration_1h_seconds', main)).toEqual({
        buckets: { 60: 3, 300: 5, 600: 5, 900: 5, 1800: 5, 3600: 5, 5400: 5, 7200: 5, '+Inf': 5 },
        sum: 210,
        count: 5,
      });
      // Bisection parts start as soon as the batch is split.
      expect(histogram(x, 'mq_pr_wait_duration_1h_seconds', bisection)).toMatchObject({ sum: 0, count: 2 });
      // Test spells, main: the batch 600 s for each of its PRs, PR 3 100 s then 50 s.
      expect(histogram(x, 'mq_pr_test_duration_1h_seconds', main)).toEqual({
        buckets: { 60: 1, 300: 2, 600: 4, 900: 4, 1800: 4, 3600: 4, 5400: 4, 7200: 4, '+Inf': 4 },
        sum: 1350,
        count: 4,
      });
      // Bisection parts [1] and [2]: 420 s each.
      expect(histogram(x, 'mq_pr_test_duration_1h_seconds', bisection)).toEqual({
        buckets: { 60: 0, 300: 0, 600: 2, 900: 2, 1800: 2, 3600: 2, 5400: 2, 7200: 2, '+Inf': 2 },
        sum: 840,
        count: 2,
      });
      // Time in queue: PR 1 1110 s (merged on its bisection run), PR 3 150 s (cancelled), PR 2 1110 s
      // (failed in bisection).
      const inQueue = (labels: Record<string, string>, conclusion: string) =>
        histogram(x, 'mq_pr_time_in_queue_1h_seconds', { ...labels, conclusion });
      expect(inQueue(bisection, 'merged')).toMatchObject({
        buckets: { 900: 0, 1800: 1, '+Inf': 1 },
        sum: 1110,
        count: 1,
      });
      expect(inQueue(main, 'merged')).toMatchObject({ sum: 0, count: 0 });
      expect(inQueue(main, 'cancelled')).toMatchObject({ buckets: { 60: 0, 300: 1 }, sum: 150, count: 1 });
      expect(inQueue(bisection, 'failed')).toMatchObject({ buckets: { 900: 0, 1800: 1 }, sum: 1110, count: 1 });
      expect(inQueue(main, 'failed')).toMatchObject({ sum: 0, count: 0 });

      // Runs: batch [1,2], PR 3 twice, PR 5 in the main queue; [1] and [2] in the bisection.
      expect(x.value('greenline_ci_runs_started_1h_total', main)).toBe(4);
      expect(x.value('greenline_ci_runs_started_1h_total', bisection)).toBe(2);
      expect(x.value('greenline_ci_runs_per_merged_pr_1h', { repo: 'acme/web', branch: 'main' })).toBe(6);
      expect(histogram(x, 'greenline_batch_size_1h', main)).toMatchObject({
        buckets: { 1: 3, 2: 4, '+Inf': 4 },
        sum: 5,
        count: 4,
      });
      expect(histogram(x, 'greenline_batch_size_1h', bisection)).toMatchObject({
        buckets: { 1: 2, '+Inf': 2 },
        sum: 2,
        count: 2,
      });
      const bisectionRuns = Object.fromEntries(
        x.series('greenline_bisection_runs_1h_total').map((s) => [s.labels.status, s.value]),
      );
      expect(bisectionRuns).toEqual({ creating: 0, in_progress: 0, succeeded: 1, failed: 1, cancelled: 0 });
      // A single-mode queue has one line, no lanes.
      expect(x.series('greenline_lane_depth')).toEqual([]);

      // An hour later everything above has left the window, PR 5's test start exactly an hour ago
      // included: the window is (now − 1 h, now]. PR 5 is still testing, and now passes.
      t.clock.advance(3600 * S);
      const later = await m.scrape();
      expect(later.value('mq_testing_slots_active', main)).toBe(1);
      for (const labels of [main, bisection]) {
        for (const conclusion of ['merged', 'failed', 'cancelled']) {
          expect(later.value('mq_pr_conclusions_1h_total', { ...labels, conclusion })).toBe(0);
          expect(later.value('mq_pr_time_in_queue_1h_seconds_count', { ...labels, conclusion })).toBe(0);
        }
        expect(later.value('mq_pr_restarts_1h_total', labels)).toBe(0);
        expect(later.value('mq_pr_wait_duration_1h_seconds_count', labels)).toBe(0);
        expect(later.value('mq_pr_test_duration_1h_seconds_count', labels)).toBe(0);
        expect(later.value('greenline_ci_runs_started_1h_total', labels)).toBe(0);
      }
      expect(later.series('greenline_ci_runs_per_merged_pr_1h')).toEqual([]);

      await t.ci.pass(await runOf(5));
      await t.runEffects();
      const last = await m.scrape();
      // PR 5 merged after 3630 s in the queue (admitted before the window: measured from admission),
      // 3600 s of it testing (le is inclusive); its run was created before the window: 0 runs per merge.
      expect(last.value('mq_pr_conclusions_1h_total', { ...main, conclusion: 'merged' })).toBe(1);
      expect(histogram(last, 'mq_pr_time_in_queue_1h_seconds', { ...main, conclusion: 'merged' })).toMatchObject({
        buckets: { 3600: 0, 5400: 1 },
        sum: 3630,
        count: 1,
      });
      expect(histogram(last, 'mq_pr_test_duration_1h_seconds', main)).toMatchObject({
        buckets: { 1800: 0, 3600: 1 },
        sum: 3600,
        count: 1,
      });
      expect(last.value('greenline_ci_runs_per_merged_pr_1h', { repo: 'acme/web', branch: 'main' })).toBe(0);
      expect(last.value('mq_depth_current', main)).toBe(0);
    });
  },
);
