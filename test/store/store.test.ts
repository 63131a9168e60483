/** Every store function, on SQLite and (when reachable, always in CI) PostgreSQL. */
import { afterAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import type { Effect } from '../../src/engine/types.js';
import { findActiveTokenWithOrg, insertApiToken, listApiTokens, revokeApiToken } from '../../src/store/api-tokens.js';
import { listCiStatuses, upsertCiStatus } from '../../src/store/ci-statuses.js';
import type { Db } from '../../src/store/connect.js';
import {
  completeEffect,
  failEffect,
  hasEffectActivitySince,
  insertEffects,
  leaseEffects,
  listEffects,
  nextEffectRunAt,
  releaseForeignClaims,
  rescheduleEffect,
  selectDueEffectIds,
  selectQueuesWithDueEffects,
} from '../../src/store/effects.js';
import {
  findEntry,
  findEntryById,
  listActiveEntries,
  listActiveEntriesAtSha,
  listActivePrNumbers,
  listEntriesPage,
  upsertEntries,
} from '../../src/store/entries.js';
import { findImpactedTargets, upsertImpactedTargets } from '../../src/store/impacted-targets.js';
import { migrateToLatest } from '../../src/store/migrations/index.js';
import { findOrgById, findOrgByName, insertOrg, listOrgNames } from '../../src/store/orgs.js';
import { insertQueueEvent, listQueueEvents } from '../../src/store/queue-events.js';
import {
  deleteQueueRow,
  findQueue,
  findQueueById,
  findQueueVersion,
  findRepoAndQueue,
  insertQueue,
  listQueuesOfRepos,
  listQueuesWithActiveEntries,
  lockQueue,
  markConfigWrite,
  updateQueueRow,
} from '../../src/store/queues.js';
import { deleteRepo, findRepo, findRepoById, insertRepo, listRepos } from '../../src/store/repos.js';
import {
  findRunRow,
  findRunRowByTestSha,
  listRunsForSnapshot,
  setRunRequiredStatuses,
  upsertRuns,
} from '../../src/store/test-runs.js';
import { listTransitionsOfRecentPrs } from '../../src/store/metrics-transitions.js';
import { insertTransitions } from '../../src/store/transitions.js';
import { TERMINAL_STATES } from '../../src/engine/types.js';
import { openMigrated, testDatabases } from '../helpers/databases.js';
import { entryRecord as entry, runRecord as run, seedRepo } from './records.js';

const databases = await testDatabases();

const wakeup = (key: string, at: number): Effect => ({ kind: 'scheduleWakeup', key, at });

describe.each(databases)('store on $name', (database) => {
  let db: Db;

  afterAll(() => database.cleanup());
  beforeEach(async () => {
    db = await openMigrated(database);
    await seedRepo(db);
  });
  afterEach(async () => {
    await db.destroy();
    await database.cleanup();
  });

  it('migrations are idempotent', async () => {
    await migrateToLatest(db);
    expect(await listOrgNames(db)).toEqual(['acme']);
  });

  it('orgs: insert, find by name and id, unique names', async () => {
    expect((await findOrgByName(db, 'acme'))?.id).toBe('o1');
    expect((await findOrgById(db, 'o1'))?.name).toBe('acme');
    expect(await findOrgByName(db, 'nope')).toBeUndefined();
    await expect(insertOrg(db, { id: 'o2', name: 'acme', created_at: 2 })).rejects.toThrow();
  });

  it('api tokens: found by hash with their org while active, listed per org, revoked once', async () => {
    await insertApiToken(db, { id: 't1', org_id: 'o1', name: 'ci', token_hash: 'h1', created_at: 5, revoked_at: null });
    await insertApiToken(db, {
      id: 't2',
      org_id: 'o1',
      name: 'bot',
      token_hash: 'h2',
      created_at: 6,
      revoked_at: null,
    });
    expect(await findActiveTokenWithOrg(db, 'h1')).toMatchObject({ id: 't1', org_id: 'o1', org_name: 'acme' });
    expect((await listApiTokens(db, 'o1')).map((t) => t.id)).toEqual(['t1', 't2']);
    expect(await listApiTokens(db, 'other')).toEqual([]);
    expect(await revokeApiToken(db, 't1', 9)).toBe(true);
    expect(await revokeApiToken(db, 't1', 10)).toBe(false);
    expect(await findActiveTokenWithOrg(db, 'h1')).toBeUndefined();
    expect((await listApiTokens(db)).find((t) => t.id === 't1')?.revoked_at).toBe(9);
  });

  it('repos: find by coordinates, list per org, unique coordinates, delete cascades to queues', async () => {
    expect((await findRepo(db, 'github.com', 'acme', 'web'))?.id).toBe('r1');
    expect((await findRepoById(db, 'r1'))?.ci_command).toBe('make test');
    expect((await listRepos(db, 'o1')).map((r) => r.name)).toEqual(['web']);
    await expect(insertRepo(db, { ...(await findRepoById(db, 'r1'))!, id: 'r2' })).rejects.toThrow();
    await deleteRepo(db, 'r1');
    expect(await findQueueById(db, 'q1')).toBeUndefined();
  });

  it('queues: find, with its repo in one lookup, lock in a transaction, update, list per repo, delete', async () => {
    expect((await findQueue(db, 'r1', 'main'))?.id).toBe('q1');
    const both = await findRepoAndQueue(db, { host: 'github.com', owner: 'acme', name: 'web' }, 'main');
    expect(both?.repo).toEqual(await findRepoById(db, 'r1'));
    expect(both?.queue).toEqual(await findQueueById(db, 'q1'));
    expect(
      (await findRepoAndQueue(db, { host: 'github.com', owner: 'acme', name: 'web' }, 'dev'))?.queue,
    ).toBeUndefined();
    expect(await findRepoAndQueue(db, { host: 'github.com', owner: 'acme', name: 'nope' }, 'main')).toBeUndefined();
    expect(await findQueueVersion(db, 'q1')).toBe(0);
    expect(await findQueue(db, 'r1', 'dev')).toBeUndefined();
    await db.transaction().execute(async (trx) => {
      const row = await lockQueue(trx, 'q1');
      await updateQueueRow(trx, 'q1', {
        state: 'PAUSED',
        config: '{"a":1}',
        target_sha: 'abc',
        internal: '{"x":2}',
        version: row!.version + 1,
        updated_at: 7,
      });
    });
    const q = await findQueueById(db, 'q1');
    expect(q).toMatchObject({
      state: 'PAUSED',
      config: '{"a":1}',
      target_sha: 'abc',
      internal: '{"x":2}',
      version: 1,
      updated_at: 7,
    });
    expect((await listQueuesOfRepos(db, ['r1'])).map((x) => x.id)).toEqual(['q1']);
    expect(await listQueuesOfRepos(db, [])).toEqual([]);
    await expect(insertQueue(db, { ...q!, id: 'q2' })).rejects.toThrow();
    await deleteQueueRow(db, 'q1');
    expect(await findQueueById(db, 'q1')).toBeUndefined();
  });

  it('queues: a Terraform config write marks the queue managed and clears drift; other writes start drift once', async () => {
    const marker = async () => {
      const q = await findQueueById(db, 'q1');
      const both = await findRepoAndQueue(db, { host: 'github.com', owner: 'acme', name: 'web' }, 'main');
      expect([both?.queue?.managed_by, both?.queue?.drift_since]).toEqual([q?.managed_by, q?.drift_since]);
      return [q?.managed_by, q?.drift_since];
    };
    expect(await marker()).toEqual([null, null]);
    await markConfigWrite(db, 'q1', false, 5);
    expect(await marker()).toEqual([null, null]);
    await markConfigWrite(db, 'q1', true, 6);
    expect(await marker()).toEqual(['terraform', null]);
    await db.transaction().execute((trx) => markConfigWrite(trx, 'q1', false, 1_767_225_600_000));
    await markConfigWrite(db, 'q1', false, 1_767_225_700_000);
    expect(await marker()).toEqual(['terraform', 1_767_225_600_000]);
    await markConfigWrite(db, 'q1', true, 9);
    expect(await marker()).toEqual(['terraform', null]);
    await insertQueue(db, { ...(await findQueueById(db, 'q1'))!, id: 'q2', target_branch: 'dev' });
    expect((await findQueueById(db, 'q2'))?.managed_by).toBe('terraform');
  });

  it('entries: upsert inserts then replaces; active lists skip terminal entries', async () => {
    await upsertEntries(db, 'q1', [entry(1), entry(2, { state: 'MERGED' }), entry(3, { state: 'NOT_READY' })]);
    await upsertEntries(db, 'q1', [entry(1, { state: 'TESTING', headSha: 'new' })]);
    expect(await findEntry(db, 'q1', 1)).toMatchObject({ state: 'TESTING', headSha: 'new' });
    expect((await listActiveEntries(db, 'q1', TERMINAL_STATES)).map((e) => e.prNumber).sort()).toEqual([1, 3]);
    expect(await listActivePrNumbers(db, 'q1', TERMINAL_STATES)).toEqual([1, 3]);
    expect((await listQueuesWithActiveEntries(db, TERMINAL_STATES)).map((q) => q.id)).toEqual(['q1']);
    expect((await findEntryById(db, 'q1', 'entry-2'))?.prNumber).toBe(2);
    expect(await listActiveEntriesAtSha(db, 'r1', 1, 'new', TERMINAL_STATES)).toEqual([
      { queueId: 'q1', entry: expect.objectContaining({ prNumber: 1 }) },
    ]);
    expect(await listActiveEntriesAtSha(db, 'r1', 2, 'sha-2', TERMINAL_STATES)).toEqual([]);
  });

  it('entries: pages newest submission first, after a position, filtered by state or conclusion time', async () => {
    await upsertEntries(db, 'q1', [
      entry(1, { submittedAt: 10 }),
      entry(2, { submittedAt: 20, state: 'MERGED', stateChangedAt: 50 }),
      entry(3, { submittedAt: 20 }),
      entry(4, { submittedAt: 30, state: 'FAILED', stateChangedAt: 40 }),
    ]);
    const page = async (q: Partial<Parameters<typeof listEntriesPage>[1]>) =>
      (await listEntriesPage(db, { queueId: 'q1', limit: 10, ...q })).map((e) => e.prNumber);
    expect(await page({})).toEqual([4, 3, 2, 1]);
    expect(await page({ limit: 2 })).toEqual([4, 3]);
    expect(await page({ after: { submittedAt: 20, prNumber: 3 } })).toEqual([2, 1]);
    expect(await page({ state: 'PENDING' })).toEqual([3, 1]);
    expect(await page({ concluded: { since: 45, terminal: TERMINAL_STATES } })).toEqual([2]);
    expect(await page({ concluded: { until: 45, terminal: TERMINAL_STATES } })).toEqual([4]);
    expect(await page({ concluded: { since: 40, until: 50, terminal: TERMINAL_STATES } })).toEqual([4, 2]);
  });

  it('test runs: upsert keeps the resolved required statuses; snapshot runs by status or id; by test sha', async () => {
    await upsertRuns(db, 'q1', [
      run('a'),
      run('b', { status: 'succeeded', testSha: 't-b' }),
      run('c', { status: 'failed' }),
    ]);
    await setRunRequiredStatuses(db, 'a', ['build', 'lint'], 'merge_instance');
    await upsertRuns(db, 'q1', [run('a', { testSha: 't-a', status: 'in_progress' })]);
    const row = await findRunRow(db, 'a');
    expect(row).toMatchObject({
      test_sha: 't-a',
      required_statuses: '["build","lint"]',
      required_statuses_source: 'merge_instance',
    });
    expect((await listRunsForSnapshot(db, 'q1', ['creating', 'in_progress'], ['c'])).map((r) => r.id)).toEqual([
      'a',
      'c',
    ]);
    expect(await listRunsForSnapshot(db, 'q1', [], [])).toEqual([]);
    expect((await findRunRowByTestSha(db, 'r1', 't-b'))?.id).toBe('b');
    expect(await findRunRowByTestSha(db, 'r1', 'nope')).toBeUndefined();
  });

  it('ci statuses: one per context, the latest report wins', async () => {
    await upsertRuns(db, 'q1', [run('a')]);
    await upsertCiStatus(db, {
      run_id: 'a',
      context: 'build',
      state: 'pending',
      url: null,
      description: null,
      updated_at: 1,
    });
    await upsertCiStatus(db, {
      run_id: 'a',
      context: 'build',
      state: 'success',
      url: 'http://ci/1',
      description: 'ok',
      updated_at: 2,
    });
    await upsertCiStatus(db, {
      run_id: 'a',
      context: 'lint',
      state: 'failure',
      url: null,
      description: null,
      updated_at: 3,
    });
    expect((await listCiStatuses(db, 'a')).map((s) => [s.context, s.state, s.url])).toEqual([
      ['build', 'success', 'http://ci/1'],
      ['lint', 'failure', null],
    ]);
  });

  it('impacted targets: per (PR, head sha), last upload wins, ALL kept as ALL', async () => {
    await upsertImpactedTargets(db, 'r1', 7, 's1', ['a', 'b'], 1);
    await upsertImpactedTargets(db, 'r1', 7, 's1', ['c'], 2);
    await upsertImpactedTargets(db, 'r1', 7, 's2', 'ALL', 3);
    expect(await findImpactedTargets(db, 'r1', 7, 's1')).toEqual(['c']);
    expect(await findImpactedTargets(db, 'r1', 7, 's2')).toBe('ALL');
    expect(await findImpactedTargets(db, 'r1', 8, 's1')).toBeNull();
  });

  it('effects: idempotent by key, claimed when due with a lease, completed, rescheduled or failed', async () => {
    await db.transaction().execute((trx) =>
      insertEffects(
        trx,
        'q1',
        [
          { effect: wakeup('w1', 100), runAt: 100 },
          { effect: wakeup('w2', 300), runAt: 300 },
        ],
        1,
      ),
    );
    await db.transaction().execute((trx) => insertEffects(trx, 'q1', [{ effect: wakeup('w1', 999), runAt: 999 }], 2));
    expect((await listEffects(db, 'q1')).map((e) => [e.key, e.run_at])).toEqual([
      ['w1', 100],
      ['w2', 300],
    ]);
    expect(await nextEffectRunAt(db)).toBe(100);

    expect(await selectQueuesWithDueEffects(db, 150, [])).toEqual(['q1']);
    expect(await selectQueuesWithDueEffects(db, 150, ['q1'])).toEqual([]);
    expect(await selectQueuesWithDueEffects(db, 50, [])).toEqual([]);
    expect(await db.transaction().execute((trx) => selectDueEffectIds(trx, 150, 10, 'other'))).toEqual([]);
    const claimed = await db
      .transaction()
      .execute(async (trx) => leaseEffects(trx, await selectDueEffectIds(trx, 150, 10, 'q1'), 150 + 60));
    expect(claimed.map((e) => [e.key, e.attempts, e.run_at])).toEqual([['w1', 1, 210]]);
    expect(await db.transaction().execute((trx) => selectDueEffectIds(trx, 150, 10, 'q1'))).toEqual([]);
    expect(await hasEffectActivitySince(db, 'q1', 'scheduleWakeup', 0)).toBe(true);
    expect(await hasEffectActivitySince(db, 'q1', 'merge', 0)).toBe(false);

    await rescheduleEffect(db, claimed[0]!.id, 500, 'boom', 160);
    await completeEffect(db, (await listEffects(db, 'q1'))[1]!.id, 170);
    const [w1, w2] = await listEffects(db, 'q1');
    expect(w1).toMatchObject({ status: 'pending', run_at: 500, last_error: 'boom' });
    expect(w2).toMatchObject({ status: 'done', updated_at: 170 });
    await failEffect(db, w1!.id, 'gave up', 600);
    expect((await listEffects(db, 'q1'))[0]).toMatchObject({ status: 'failed', last_error: 'gave up' });
    expect(await nextEffectRunAt(db)).toBeNull();
  });

  it('effects: one chain at a time in emission order, however the earlier one is held up; chains and wake-ups independent', async () => {
    const create = (run: string): Effect => ({
      kind: 'createTestBranch',
      key: `${run}:create`,
      runId: run,
      branch: `b/${run}`,
      baseSha: 's',
      prs: [],
    });
    const remove = (run: string): Effect => ({
      kind: 'deleteTestBranch',
      key: `${run}:delete`,
      runId: run,
      branch: `b/${run}`,
    });
    await db.transaction().execute((trx) =>
      insertEffects(
        trx,
        'q1',
        [
          { effect: create('a'), runAt: 100 },
          { effect: create('b'), runAt: 100 },
          { effect: wakeup('w', 100), runAt: 100 },
          { effect: remove('a'), runAt: 100 },
        ],
        100,
      ),
    );
    const keys = async (ids: number[]) =>
      (await listEffects(db, 'q1')).filter((e) => ids.includes(e.id)).map((e) => e.key);
    const due = (now: number) => db.transaction().execute((trx) => selectDueEffectIds(trx, now, 10, 'q1'));
    // a:delete waits behind a:create; the other chains do not.
    expect(await keys(await due(100))).toEqual(['a:create', 'b:create', 'w']);
    const [aCreate] = await listEffects(db, 'q1');

    // Claimed by an instance (here one that dies): a:delete still waits, even once due by its own time.
    await db.transaction().execute((trx) => leaseEffects(trx, [aCreate!.id], 100 + 600_000, 'dead'));
    expect(await keys(await due(200))).toEqual(['b:create', 'w']);
    expect(await nextEffectRunAt(db)).toBe(100);
    // Taken back by the queue's new holder: due at once, still before a:delete.
    expect(await releaseForeignClaims(db, 'q1', 'alive', 300)).toBe(1);
    expect(await keys(await due(300))).toEqual(['a:create', 'b:create', 'w']);

    // Waiting for a retry: a:delete waits too, and the next due time is the retry's.
    await rescheduleEffect(db, aCreate!.id, 5_000, 'boom', 300);
    await completeEffect(db, (await listEffects(db, 'q1'))[1]!.id, 300);
    await completeEffect(db, (await listEffects(db, 'q1'))[2]!.id, 300);
    expect(await due(4_999)).toEqual([]);
    expect(await selectQueuesWithDueEffects(db, 4_999, [])).toEqual([]);
    expect(await nextEffectRunAt(db)).toBe(5_000);
    expect(await keys(await due(5_000))).toEqual(['a:create']);

    // Done (or given up): the next of the chain may go.
    await completeEffect(db, aCreate!.id, 5_000);
    expect(await keys(await due(5_000))).toEqual(['a:delete']);
  });

  it('queue events: stored once per key, in order', async () => {
    const ev = {
      type: 'pull_request.submitted' as const,
      at: 1,
      prNumbers: [1],
      prNumbersInBatch: [1],
      runId: null,
      testBranch: null,
      testBranchSha: null,
      reason: 'API_REQUESTED' as const,
      batched: false,
      isBisection: false,
    };
    await insertQueueEvent(db, 'q1', 'k1', ev, 1);
    await insertQueueEvent(db, 'q1', 'k1', ev, 2);
    await insertQueueEvent(db, 'q1', 'k2', { ...ev, type: 'pull_request.queued' }, 3);
    expect((await listQueueEvents(db, 'q1')).map((e) => e.type)).toEqual([
      'pull_request.submitted',
      'pull_request.queued',
    ]);
  });

  it('transitions: the whole history of the PRs active in a window', async () => {
    const t = (pr: number, to: string, at: number) => ({
      queue_id: 'q1',
      pr_number: pr,
      from_state: null,
      to_state: to,
      reason: 'X',
      run_id: null,
      at,
    });
    await db
      .transaction()
      .execute((trx) => insertTransitions(trx, [t(1, 'PENDING', 10), t(1, 'TESTING', 500), t(2, 'PENDING', 20)]));
    const rows = await listTransitionsOfRecentPrs(db, ['q1'], 100);
    expect(rows.map((r) => [r.prNumber, r.to, r.at])).toEqual([
      [1, 'PENDING', 10],
      [1, 'TESTING', 500],
    ]);
    expect(await listTransitionsOfRecentPrs(db, [], 0)).toEqual([]);
  });
});
