/**
 * Store benchmark (`npm run bench:store`): the same workload through the real service on a SQLite file
 * (WAL) and on PostgreSQL (127.0.0.1:5432, a database created for the run and dropped after), in one
 * run, with the ratio PostgreSQL / SQLite.
 *
 * Setup per store: one organization, repository and queue (concurrency 10), fake forge and CI (the
 * forge is not what is measured), nothing running in the background (the effects stay in the outbox).
 * - submit:   submitPullRequest of new PRs, one at a time: each is a decision committed with its
 *             transitions and effects in one transaction (on PostgreSQL, with the queue's row lock)
 * - submit ×10: the same, ten requests in flight at once (they take turns per queue)
 * - read:     getSubmittedPullRequest of a PR among those submitted, one at a time
 * - read ×10: the same, ten in flight at once
 * The stores take turns in slices (a round submits 100 PRs and reads 1,000 times on each), so a change in
 * the load of a shared machine falls on both alike; rates are over all slices of an operation.
 *
 * Run: npm run bench:store [-- rounds, default 5]   (prints only; nothing is enforced)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AuthContext, QueueKey } from '../src/app/service-port.js';
import { testDatabases, type TestDatabase } from '../test/helpers/databases.js';
import { createTestService, type TestService } from '../test/helpers/service.js';

const ROUNDS = Number(process.argv[2] ?? 5);
const SUBMITS = 100;
const READS = 1_000;
const SLUG = 'github.com/acme/web';

interface Store {
  name: string;
  t: TestService;
  ctx: AuthContext;
  key: QueueKey;
  next: number;
  /** Operation → [count, milliseconds]. */
  totals: Map<string, [number, number]>;
}

async function open(name: string, databaseUrl: string): Promise<Store> {
  const t = await createTestService({ databaseUrl });
  const { ctx } = await t.createOrg('acme');
  await t.connectRepo('acme', SLUG);
  const key = t.key(SLUG);
  await t.service.createQueue(ctx, key, { concurrency: 10 });
  return { name, t, ctx, key, next: 1, totals: new Map() };
}

async function timed(s: Store, op: string, count: number, work: () => Promise<void>): Promise<void> {
  const started = performance.now();
  await work();
  const ms = performance.now() - started;
  const [n, total] = s.totals.get(op) ?? [0, 0];
  s.totals.set(op, [n + count, total + ms]);
}

/** Runs `count` calls of `call(i)`, `parallel` at a time. */
async function inFlight(count: number, parallel: number, call: (i: number) => Promise<unknown>): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (i < count) await call(i++);
    }),
  );
}

async function round(s: Store): Promise<void> {
  const submit = async (): Promise<void> => {
    const n = s.next++;
    s.t.forge.openPr(SLUG, { number: n });
    await s.t.service.submitPullRequest(s.ctx, s.key, { prNumber: n });
  };
  const read = (i: number) =>
    s.t.service.getSubmittedPullRequest(s.ctx, s.key, { number: ((i * 7919) % (s.next - 1)) + 1 });
  await timed(s, 'submit', SUBMITS / 2, () => inFlight(SUBMITS / 2, 1, submit));
  await timed(s, 'submit ×10', SUBMITS / 2, () => inFlight(SUBMITS / 2, 10, submit));
  await timed(s, 'read', READS / 2, () => inFlight(READS / 2, 1, read));
  await timed(s, 'read ×10', READS / 2, () => inFlight(READS / 2, 10, read));
}

async function main(): Promise<void> {
  const databases = await testDatabases();
  const pg: TestDatabase | undefined = databases.find((d) => d.name === 'postgres');
  if (!pg)
    throw new Error('bench:store compares with PostgreSQL: start one on 127.0.0.1:5432 (user postgres, trust auth)');
  const dir = await mkdtemp(path.join(os.tmpdir(), 'greenline-bench-store-'));
  const stores = [
    await open('SQLite', `sqlite:${path.join(dir, 'greenline.db')}`),
    await open('PostgreSQL', await pg.url()),
  ];
  try {
    for (const s of stores) await round(s); // warm-up (prepared statements, caches), not counted
    for (const s of stores) s.totals.clear();
    for (let r = 0; r < ROUNDS; r++) for (const s of stores) await round(s);

    const [sqlite, postgres] = stores as [Store, Store];
    const rate = (s: Store, op: string) => {
      const [n, ms] = s.totals.get(op)!;
      return n / (ms / 1000);
    };
    console.log(
      `\n${ROUNDS} rounds per store, each ${SUBMITS} submits and ${READS} reads; ${sqlite.next - 1} PRs per queue at the end\n`,
    );
    console.log('operation        SQLite ops/s   PostgreSQL ops/s   PostgreSQL / SQLite');
    for (const op of ['submit', 'submit ×10', 'read', 'read ×10']) {
      const a = rate(sqlite, op);
      const b = rate(postgres, op);
      console.log(
        `${op.padEnd(16)} ${a.toFixed(0).padStart(12)}   ${b.toFixed(0).padStart(16)}   ${(b / a).toFixed(2).padStart(19)}`,
      );
    }
  } finally {
    for (const s of stores) await s.t.close();
    await pg.cleanup();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
