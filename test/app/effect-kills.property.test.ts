/**
 * Fault injection over the effect runner, on SQLite and (when reachable) PostgreSQL. Each case: a
 * queue of 2–4 PRs on one store and one fake forge (the remote), a manual clock, and up to three
 * instances in turn; each but the last dies at a random effect call of its own (before or after the
 * call did its work: kill -9 mid-push, mid-merge…) and the next takes the queue over once the lease
 * runs out. Meanwhile random requests arrive (cancellations, CI outcomes, time passing). Then the
 * queue is driven until every PR is done, and the end state and the log of every call the forge and
 * the CIs performed are checked:
 *
 * - every effect that reaches the forge or CI does so in emission order within its chain (a run's
 *   effects; store/effects.ts "Order"), and the queue's events are recorded in emission order;
 * - each is performed once, except where at-least-once is the contract: the one call an instance
 *   died after (its effect is done again by the next holder: a test branch is pushed again to the same
 *   commit, a merge already on the target is recognised, CI cancel and branch deletion are harmless
 *   twice) and a CI start whose CI died with its instance (started again by the next holder);
 * - every done clean-up and merge was performed; a test branch not built was for a run that is over;
 * - CI is never started for a run that is already finished or cancelled;
 * - no test branch is left on the remote, every PR ends MERGED, FAILED or CANCELLED, none merged twice.
 *
 * Bounded for CI: EFFECT_KILL_RUNS cases per database (default 60 on SQLite, 10 on PostgreSQL).
 */
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { connect, type Db } from '../../src/store/connect.js';
import type { EffectRow } from '../../src/store/database.js';
import { ServiceError } from '../../src/lib/errors.js';
import { dialectOf } from '../../src/store/dialect.js';
import { listEffects } from '../../src/store/effects.js';
import { findRunRow } from '../../src/store/test-runs.js';
import { testDatabases } from '../helpers/databases.js';
import { mortalInstance, type EffectCall, type MortalInstance } from '../helpers/mortal-instance.js';
import { createQueueFixture } from '../helpers/service.js';

const databases = await testDatabases();
const REPO = 'github.com/acme/web';
const TTL = 15_000;
const TERMINAL = ['MERGED', 'FAILED', 'CANCELLED'];

type Action = { kind: 'cancel'; pr: number } | { kind: 'ci'; pass: boolean } | { kind: 'wait'; ms: number };

interface Scenario {
  prs: number;
  concurrency: number;
  /** Where each instance but the last dies: at its n-th effect call, before or after doing it. */
  kills: { at: number; when: 'before' | 'after' }[];
  actions: Action[];
}

const scenarios: fc.Arbitrary<Scenario> = fc.record({
  prs: fc.integer({ min: 2, max: 4 }),
  concurrency: fc.integer({ min: 1, max: 3 }),
  kills: fc.array(
    fc.record({ at: fc.integer({ min: 0, max: 8 }), when: fc.constantFrom('before' as const, 'after' as const) }),
    { minLength: 1, maxLength: 2 },
  ),
  actions: fc.array(
    fc.oneof(
      fc.record({ kind: fc.constant('cancel' as const), pr: fc.integer({ min: 1, max: 4 }) }),
      fc.record({ kind: fc.constant('ci' as const), pass: fc.boolean() }),
      fc.record({ kind: fc.constant('wait' as const), ms: fc.integer({ min: 1_000, max: 20_000 }) }),
    ),
    { maxLength: 10 },
  ),
});

/** The effect a performed call was for, by key (a merge by the commit it puts on the target). */
function effectOf(call: EffectCall, effects: EffectRow[]): EffectRow {
  const key = {
    createTestBranch: `${call.runId}:createTestBranch`,
    ciStart: `${call.runId}:startCi`,
    ciCancel: `${call.runId}:cancelCi`,
    deleteBranch: `${call.runId}:deleteTestBranch`,
    advanceTarget: null,
  }[call.op];
  const row =
    key !== null
      ? effects.find((e) => e.key === key)
      : effects.find(
          (e) => e.kind === 'merge' && (JSON.parse(e.payload) as { testSha: string }).testSha === call.testSha,
        );
  if (!row) throw new Error(`no effect for ${call.op} ${call.runId ?? call.testSha}`);
  return row;
}

async function runScenario(databaseUrl: string, sc: Scenario): Promise<void> {
  const { t, ctx, key } = await createQueueFixture({ databaseUrl, queue: { concurrency: sc.concurrency } });
  const log: EffectCall[] = [];
  const startedWhileOver: string[] = [];
  const instances: MortalInstance[] = [...sc.kills, null].map((kill, i) =>
    mortalInstance({
      db: t.db,
      clock: t.clock,
      forge: t.forge,
      instanceId: `instance-${i}`,
      leaseTtlMs: TTL,
      log,
      ...(kill ? { dieAt: (_call: EffectCall, n: number) => (n === kill.at ? kill.when : null) } : {}),
      beforeCall: async (call) => {
        if (call.op !== 'ciStart') return;
        const status = (await findRunRow(t.db, call.runId!))?.status;
        if (status !== 'in_progress') startedWhileOver.push(`${call.runId} (${status})`);
      },
    }),
  );
  let live = 0;
  const current = () => instances[live]!;
  /** Drains the live instance; when it dies, the next one serves from now on (and drives the queue once the lease lapses). */
  const drain = async () => {
    await current().drain();
    if (current().isDead()) live++;
  };
  const reported = new Set<string>();
  const unreported = () =>
    current()
      .ci.startedRunIds()
      .filter((id) => !reported.has(id));
  const report = async (runId: string, pass: boolean) => {
    reported.add(runId);
    await (pass ? current().ci.pass(runId) : current().ci.fail(runId));
  };
  const entries = async () =>
    Promise.all(
      Array.from({ length: sc.prs }, (_, i) =>
        current()
          .app.service.getSubmittedPullRequest(ctx, key, { number: i + 1 })
          .then((r) => r.entry),
      ),
    );

  try {
    for (let n = 1; n <= sc.prs; n++) {
      t.forge.openPr(REPO, { number: n });
      await current().app.service.submitPullRequest(ctx, key, { prNumber: n });
    }
    await drain();
    for (const action of sc.actions) {
      if (action.kind === 'cancel' && action.pr <= sc.prs) {
        const entry = (await entries())[action.pr - 1]!;
        // A PR being merged can no longer be cancelled: the request is refused, as a user would see.
        if (!TERMINAL.includes(entry.state)) {
          await current()
            .app.service.cancelPullRequest(ctx, key, action.pr)
            .catch((err: unknown) => {
              if (!(err instanceof ServiceError && err.code === 'PR_BEING_MERGED')) throw err;
            });
        }
      } else if (action.kind === 'ci') {
        const runId = unreported()[0];
        if (runId) await report(runId, action.pass);
      } else if (action.kind === 'wait') {
        t.clock.advance(action.ms);
      }
      await drain();
    }
    // Drive to the end: leases lapse, CI passes, until every PR and every effect but wake-ups is done.
    const queueId = (await t.db.selectFrom('queues').select('id').executeTakeFirstOrThrow()).id;
    const settled = async () =>
      (await entries()).every((e) => TERMINAL.includes(e.state)) &&
      (await listEffects(t.db, queueId)).every((e) => e.status !== 'pending' || e.kind === 'scheduleWakeup');
    for (let round = 0; round < 40 && !(await settled()); round++) {
      t.clock.advance(TTL);
      await drain();
      for (const runId of unreported()) await report(runId, true);
      await drain();
    }

    const effects = await listEffects(t.db, queueId);
    const final = await entries();
    expect(final.map((e) => e.state).filter((s) => !TERMINAL.includes(s))).toEqual([]);
    expect(
      effects.filter((e) => e.status !== 'done' && e.kind !== 'scheduleWakeup').map((e) => `${e.key} ${e.status}`),
    ).toEqual([]);

    // A takeover deletes only test branches no run needs any more (a run that is over, whose own
    // deletion may still be due: that one is then harmless); the checks below are of effect calls.
    for (const call of log.filter((c) => c.atTakeover)) {
      expect(call.op).toBe('deleteBranch');
      expect(['cancelled', 'failed', 'succeeded'], `branch of ${call.runId} deleted at takeover`).toContain(
        (await findRunRow(t.db, call.runId!))?.status,
      );
    }
    // In emission order within each chain, as the forge and the CIs saw it.
    const seen = log.filter((c) => !c.atTakeover).map((call) => ({ call, effect: effectOf(call, effects) }));
    const lastOfRun = new Map<string, number>();
    for (const { call, effect } of seen) {
      const runId = (JSON.parse(effect.payload) as { runId: string }).runId;
      const before = lastOfRun.get(runId) ?? 0;
      expect(
        effect.id,
        `${call.instance} ${call.op} ${effect.key} after a later effect of its run`,
      ).toBeGreaterThanOrEqual(before);
      lastOfRun.set(runId, effect.id);
    }
    // Once each, but for the call an instance died after and a CI start whose CI died with its instance.
    const diedAfter = new Set(
      instances
        .filter((m, i) => m.isDead() && sc.kills[i]!.when === 'after')
        .map((m) => log.filter((c) => c.instance === m.app.leases.instanceId).at(-1))
        .filter((c) => c !== undefined),
    );
    const deadInstances = new Set(instances.filter((m) => m.isDead()).map((m) => m.app.leases.instanceId));
    const byEffect = new Map<string, EffectCall[]>();
    for (const { call, effect } of seen) byEffect.set(effect.key, [...(byEffect.get(effect.key) ?? []), call]);
    for (const [effectKey, calls] of byEffect) {
      const repeatable = calls
        .slice(0, -1)
        .every((c) => diedAfter.has(c) || (c.op === 'ciStart' && deadInstances.has(c.instance)));
      expect(repeatable, `${effectKey} performed by ${calls.map((c) => c.instance).join(', ')}`).toBe(true);
    }
    // Every clean-up and merge done was performed; a test branch never built was for a run that is over.
    for (const e of effects.filter((x) => ['cancelCi', 'deleteTestBranch', 'merge'].includes(x.kind))) {
      expect(byEffect.has(e.key), `${e.key} done but never performed`).toBe(true);
    }
    for (const e of effects.filter((x) => x.kind === 'createTestBranch' && !byEffect.has(x.key))) {
      const runId = (JSON.parse(e.payload) as { runId: string }).runId;
      expect(['cancelled', 'failed', 'succeeded'], `${e.key} skipped`).toContain(
        (await findRunRow(t.db, runId))?.status,
      );
    }
    // The queue's events in emission order.
    const emitted = effects.filter((e) => e.kind === 'emitEvent').map((e) => e.key);
    expect((await t.db.selectFrom('queue_events').select('key').orderBy('id').execute()).map((e) => e.key)).toEqual(
      emitted,
    );

    expect(startedWhileOver).toEqual([]);
    expect([...t.forge.state(REPO).branches.keys()].filter((b) => b.startsWith('greenline-merge/'))).toEqual([]);
    const onMain = t.forge.prsOnBranch(REPO, 'main');
    expect(onMain).toEqual([...new Set(onMain)]);
    expect([...onMain].sort()).toEqual(
      final
        .filter((e) => e.state === 'MERGED')
        .map((e) => e.prNumber)
        .sort(),
    );
  } finally {
    await current().stop();
    if (dialectOf(t.db) === 'postgres') await emptyTables(t.db);
    await t.close();
  }
}

async function withStore(url: string, use: (db: Db) => Promise<unknown>): Promise<void> {
  const db = connect({ databaseUrl: url, dataDir: '' });
  try {
    await use(db);
  } finally {
    await db.destroy();
  }
}

/** Empties every table of the (PostgreSQL) test database for the next case. */
async function emptyTables(db: Db): Promise<void> {
  const tables = await sql<{ name: string }>`select tablename as name from pg_tables
    where schemaname = current_schema() and tablename not like 'kysely%'`.execute(db);
  await sql`truncate ${sql.join(tables.rows.map((r) => sql.table(r.name)))} restart identity cascade`.execute(db);
}

describe.each(databases)('effects under random kills on $name', (database) => {
  afterAll(() => database.cleanup());
  const numRuns = Number(process.env.EFFECT_KILL_RUNS ?? (database.name === 'sqlite' ? 60 : 10));

  it(`${numRuns} random kill points: order kept per chain, at-least-once only where allowed, nothing left behind`, async () => {
    // SQLite: a fresh in-memory store per case; PostgreSQL: one database, emptied after each case
    // (commits not waiting for the disk: the cases test order, not durability).
    const url = await database.url();
    const name = url.slice(url.lastIndexOf('/') + 1);
    if (database.name === 'postgres')
      await withStore(url, (db) => sql`alter database ${sql.id(name)} set synchronous_commit = off`.execute(db));
    await fc.assert(
      fc.asyncProperty(scenarios, async (sc) => runScenario(url, sc)),
      { numRuns },
    );
  }, 240_000);
});
