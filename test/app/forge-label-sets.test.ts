/**
 * The enqueueing label from a forge that tells a PR's whole label set rather than which label changed
 * (Gitea, Forgejo: `prLabels`), applied by the real service: the label on a PR the queue does not hold
 * submits it; its removal cancels the queued PR only when the PR had it (the labels last read of it),
 * so a PR submitted otherwise is not cancelled by someone changing another label.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuthContext, QueueKey } from '../../src/app/service-port.js';
import type { ForgeObservation } from '../../src/forge/observations.js';
import type { RepoRow } from '../../src/store/database.js';
import { listQueuesOfRepos } from '../../src/store/queues.js';
import { createTestService, type TestService } from '../helpers/service.js';

const REPO = 'git.example.com/acme/web';
let t: TestService;
let ctx: AuthContext;
let key: QueueKey;
let repo: RepoRow;

beforeEach(async () => {
  t = await createTestService();
  ({ ctx } = await t.createOrg('acme'));
  repo = await t.connectRepo('acme', REPO);
  key = t.key(REPO);
  await t.service.createQueue(ctx, key, {});
  await t.service.updateQueue(ctx, key, { enqueueingLabel: 'merge', labelCommandsEnabled: true });
});
afterEach(() => t.close());

const labels = async (prNumber: number, now: string[]): Promise<boolean> => {
  const o: ForgeObservation = { kind: 'prLabels', prNumber, baseBranch: 'main', labels: now, sender: 'alice' };
  return t.app.forgeObservations.apply(repo, await listQueuesOfRepos(t.db, [repo.id]), o);
};
const state = async (n: number) => (await t.service.getSubmittedPullRequest(ctx, key, { number: n })).entry.state;

describe('label sets (prLabels)', () => {
  it('the enqueueing label among them submits the PR once; the same set again does nothing', async () => {
    t.forge.openPr(REPO, { number: 1, labels: ['bug', 'merge'] });
    expect(await labels(1, ['bug', 'merge'])).toBe(true);
    expect(await state(1)).not.toBe('CANCELLED');
    expect(await labels(1, ['bug', 'merge', 'docs'])).toBe(false);
    const { entry } = await t.service.getSubmittedPullRequest(ctx, key, { number: 1 });
    expect(entry.timeline.filter((x) => x.reason === 'USER_REQUESTED')).toHaveLength(1);
  });

  it('a set without the label cancels the queued PR that had it', async () => {
    t.forge.openPr(REPO, { number: 1, labels: ['merge'] });
    await labels(1, ['merge']);
    expect(await labels(1, [])).toBe(true);
    expect(await t.service.getSubmittedPullRequest(ctx, key, { number: 1 })).toMatchObject({
      entry: { state: 'CANCELLED', lastReason: 'USER_REQUESTED' },
    });
  });

  it('a set without the label leaves a PR submitted otherwise, which never had it, in the queue', async () => {
    t.forge.openPr(REPO, { number: 2, labels: ['bug'] });
    await t.service.submitPullRequest(ctx, key, { prNumber: 2 });
    expect(await labels(2, ['bug', 'docs'])).toBe(false);
    expect(await state(2)).not.toBe('CANCELLED');
  });

  it('nothing happens with label commands off, or for a branch without a queue', async () => {
    await t.service.updateQueue(ctx, key, { labelCommandsEnabled: false });
    t.forge.openPr(REPO, { number: 3, labels: ['merge'] });
    expect(await labels(3, ['merge'])).toBe(false);
    const o: ForgeObservation = { kind: 'prLabels', prNumber: 3, baseBranch: 'release', labels: ['merge'] };
    expect(await t.app.forgeObservations.apply(repo, await listQueuesOfRepos(t.db, [repo.id]), o)).toBe(false);
    await expect(t.service.getSubmittedPullRequest(ctx, key, { number: 3 })).rejects.toThrow(/never been submitted/);
  });
});
