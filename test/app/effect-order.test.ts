/**
 * Effects keep the order the engine emitted them in across a takeover, and an effect of a finished
 * run does no harm. Two instances on one store (SQLite and, when reachable, PostgreSQL), one fake
 * forge (the remote), a manual clock: instance A dies in the middle of an effect of a run; while its
 * lease runs out the PR is cancelled (through instance B, which serves requests too), so the run is
 * cancelled and its clean-up emitted, and more PRs are submitted (more due effects than the runner
 * claims at once); then B takes the queue over and resumes A's work.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuthContext, QueueKey } from '../../src/app/service-port.js';
import { listQueueEvents } from '../../src/store/queue-events.js';
import { findRunRow } from '../../src/store/test-runs.js';
import { testDatabases } from '../helpers/databases.js';
import { mortalInstance, type EffectCall, type EffectOp, type MortalInstance } from '../helpers/mortal-instance.js';
import { createQueueFixture, type TestService } from '../helpers/service.js';

const databases = await testDatabases();
const REPO = 'github.com/acme/web';
const TTL = 15_000;

describe.each(databases)('effect order after a takeover on $name', (database) => {
  let t: TestService;
  let ctx: AuthContext;
  let key: QueueKey;
  let log: EffectCall[];
  let b: MortalInstance;

  afterAll(() => database.cleanup());
  beforeEach(async () => {
    ({ t, ctx, key } = await createQueueFixture({ databaseUrl: await database.url() }));
    log = [];
    b = mortalInstance({ db: t.db, clock: t.clock, forge: t.forge, instanceId: 'instance-b', leaseTtlMs: TTL, log });
  });
  afterEach(async () => {
    await b.stop();
    await t.close();
  });

  const instanceA = (op: EffectOp, when: 'before' | 'after') =>
    mortalInstance({
      db: t.db,
      clock: t.clock,
      forge: t.forge,
      instanceId: 'instance-a',
      leaseTtlMs: TTL,
      log,
      dieAt: (call) => (call.op === op ? when : null),
    });
  const branchesOf = (runId: string) =>
    [...t.forge.state(REPO).branches.keys()].filter((name) => name.endsWith(`/${runId}`));

  /**
   * Submits PRs 1 and 2 through A, which dies at `op` (of PR 1's run, the first); through B cancels
   * PRs 1 and 2 and submits PRs 3 to 12; B takes over. Returns PR 1's run.
   */
  async function dieCancelTakeOver(
    op: EffectOp,
    when: 'before' | 'after',
  ): Promise<{ a: MortalInstance; runId: string }> {
    const a = instanceA(op, when);
    for (const n of [1, 2]) {
      t.forge.openPr(REPO, { number: n });
      await a.app.service.submitPullRequest(ctx, key, { prNumber: n });
    }
    await a.drain();
    expect(a.isDead()).toBe(true);
    const runId = (await b.app.service.getSubmittedPullRequest(ctx, key, { number: 1 })).entry.runId!;

    await b.app.service.cancelPullRequest(ctx, key, 1);
    await b.app.service.cancelPullRequest(ctx, key, 2);
    expect((await findRunRow(t.db, runId))?.status).toBe('cancelled');
    for (let n = 3; n <= 12; n++) {
      t.forge.openPr(REPO, { number: n });
      await b.app.service.submitPullRequest(ctx, key, { prNumber: n });
    }
    t.clock.advance(TTL);
    await b.drain();
    expect(b.app.leases.holds((await t.db.selectFrom('queues').select('id').executeTakeFirstOrThrow()).id)).toBe(true);
    return { a, runId };
  }

  it.each(['before', 'after'] as const)(
    'A dies %s pushing the test branch: the branch of the cancelled run ends deleted',
    async (when) => {
      const { runId } = await dieCancelTakeOver('createTestBranch', when);
      expect(branchesOf(runId)).toEqual([]);
      const ops = log.filter((c) => c.runId === runId).map((c) => `${c.instance} ${c.op}`);
      expect(ops.at(-1)).toBe('instance-b deleteBranch');
      expect(b.ci.startedRunIds()).not.toContain(runId);
    },
  );

  it("A dies starting CI: the cancelled run's CI is never started, its branch ends deleted", async () => {
    const { a, runId } = await dieCancelTakeOver('ciStart', 'before');
    // The takeover may delete the branch of the cancelled run first (leftover test branches); the
    // effects of the run still come in their order.
    expect(log.filter((c) => c.runId === runId && !c.atTakeover).map((c) => `${c.instance} ${c.op}`)).toEqual([
      'instance-a createTestBranch',
      'instance-b ciCancel',
      'instance-b deleteBranch',
    ]);
    expect(a.ci.started).toEqual([]);
    expect(b.ci.startedRunIds()).not.toContain(runId);
    expect(branchesOf(runId)).toEqual([]);
  });

  it('A dies pushing a test branch: queue events are recorded in the order the engine emitted them', async () => {
    await dieCancelTakeOver('createTestBranch', 'before');
    const queueId = (await t.db.selectFrom('queues').select('id').executeTakeFirstOrThrow()).id;
    const ofPr2 = (await listQueueEvents(t.db, queueId)).filter((e) => e.prNumbers.includes(2)).map((e) => e.type);
    expect(ofPr2).toEqual(['pull_request.submitted', 'pull_request.queued', 'pull_request.canceled']);
    const emitted = (
      await t.db.selectFrom('effects').select(['id', 'key']).where('kind', '=', 'emitEvent').orderBy('id').execute()
    ).map((e) => e.key);
    const recorded = (await t.db.selectFrom('queue_events').select('key').orderBy('id').execute()).map((e) => e.key);
    expect(recorded).toEqual(emitted);
  });
});
