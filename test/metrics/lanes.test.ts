/** Lanes of a parallel queue: connected components of overlapping impacted targets. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Entry, ImpactedTargets } from '../../src/engine/types.js';
import { lanesOf } from '../../src/metrics/lanes.js';
import { SLUG } from '../api/api-harness.js';
import { createMetricsHarness, type MetricsHarness } from './scrape.js';

const entry = (prNumber: number, impactedTargets: ImpactedTargets | null): Entry =>
  ({ prNumber, impactedTargets }) as Entry;

describe('lanesOf', () => {
  it('joins PRs whose targets overlap, directly or through others, named by their first PR', () => {
    expect(lanesOf([entry(7, ['a']), entry(3, ['b']), entry(9, ['c']), entry(1, ['c', 'a']), entry(4, ['d'])])).toEqual(
      [
        { head: 7, depth: 3 },
        { head: 3, depth: 1 },
        { head: 4, depth: 1 },
      ],
    );
  });

  it('lets ALL (or no upload) join every PR that has targets, and an empty list join nothing', () => {
    expect(lanesOf([entry(1, ['a']), entry(2, []), entry(3, ['b']), entry(4, 'ALL')])).toEqual([
      { head: 1, depth: 3 },
      { head: 2, depth: 1 },
    ]);
    expect(lanesOf([entry(1, []), entry(2, ['a']), entry(3, null), entry(4, ['b'])])).toEqual([
      { head: 1, depth: 1 },
      { head: 2, depth: 3 },
    ]);
    expect(lanesOf([entry(1, []), entry(2, [])])).toEqual([
      { head: 1, depth: 1 },
      { head: 2, depth: 1 },
    ]);
    expect(lanesOf([])).toEqual([]);
  });
});

describe('greenline_lane_depth', () => {
  let m: MetricsHarness;
  beforeEach(async () => {
    m = await createMetricsHarness();
  });
  afterEach(() => m.close());

  const lanes = async () =>
    Object.fromEntries((await m.scrape()).series('greenline_lane_depth').map((s) => [s.labels.lane, s.value]));

  it('reports the depth of each lane of a parallel queue, and follows merges', async () => {
    const { t } = m.h;
    const svc = t.service;
    await svc.createQueue(m.ctx, m.key, { mode: 'parallel', concurrency: 10 });
    const targets: Record<number, ImpactedTargets> = { 1: ['web'], 2: ['api'], 3: ['web', 'docs'], 4: ['docs'], 5: [] };
    for (const [n, list] of Object.entries(targets)) {
      const pr = t.forge.openPr(SLUG, { number: Number(n) });
      await svc.setImpactedTargets(m.ctx, m.key, { prNumber: pr.number, sha: pr.headSha, targets: list });
      await svc.submitPullRequest(m.ctx, m.key, { prNumber: pr.number });
    }
    await t.runEffects();
    expect(await lanes()).toEqual({ 1: 3, 2: 1, 5: 1 });
    const x = await m.scrape();
    expect(x.value('greenline_lane_depth', { repo: 'acme/web', branch: 'main', lane: '1' })).toBe(3);

    // PR 1 merges: its lane is now led by PR 3.
    await t.ci.pass((await svc.getSubmittedPullRequest(m.ctx, m.key, { number: 1 })).entry.runId!);
    await t.runEffects();
    expect((await svc.getSubmittedPullRequest(m.ctx, m.key, { number: 1 })).entry.state).toBe('MERGED');
    expect(await lanes()).toEqual({ 3: 2, 2: 1, 5: 1 });

    // A PR impacting ALL joins every lane with targets.
    const all = t.forge.openPr(SLUG, { number: 6 });
    await svc.setImpactedTargets(m.ctx, m.key, { prNumber: 6, sha: all.headSha, targets: 'ALL' });
    await svc.submitPullRequest(m.ctx, m.key, { prNumber: 6 });
    await t.runEffects();
    expect(await lanes()).toEqual({ 2: 4, 5: 1 });
  });
});
