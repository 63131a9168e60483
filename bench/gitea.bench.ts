/**
 * CI results on Gitea and Forgejo in seconds (`npm run bench:gitea`): the real service (SQLite in a
 * file, the system clock, its poller every 15 s as `serve` runs it by default) with the real gitea
 * forge against the FAKE of each dialect (test/forge/gitea/fake-gitea-api.ts), which, like the
 * forges, never delivers again what failed and has no `status` event on Forgejo. CI posts the
 * test commit's final status on the forge only; nothing tells greenline.
 *
 * 1. Forgejo: each PR submitted and tested; CI's final status posted at a random moment of the poll
 *    cycle. Measured: final status → PR shown merged on the forge.
 * 2. Gitea, a restart that missed the delivery: each PR under test, the service stopped, CI's final
 *    status posted while it is down, the service started again on the same database. Measured:
 *    start → PR merged, and final status → PR merged (which includes the time it was down).
 *
 * Goal: final status → merged ≤ 30 s at the 95th percentile, at no more than one status request per
 * run in flight per poll. Prints the figures beside the goal; fails only when the fake saw a request
 * or an answer the forge would not take or give.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { pino } from 'pino';
import { ensureOrg } from '../src/app/admin/org-admin.js';
import { connectRepo } from '../src/app/admin/repo-admin.js';
import { type App, createApp } from '../src/app/create-app.js';
import { EVERY_SCOPE } from '../src/app/scopes.js';
import type { AuthContext, QueueKey } from '../src/app/service-port.js';
import { createGitForge } from '../src/forge/git/index.js';
import { GiteaForge } from '../src/forge/gitea/index.js';
import { systemClock } from '../src/lib/clock.js';
import { connect, type Db } from '../src/store/connect.js';
import { migrateToLatest } from '../src/store/migrations/index.js';
import { type Dialect, expectNoViolations, FakeGiteaApi } from '../test/forge/gitea/fake-gitea-api.js';
import { ScriptedCi } from '../test/doubles/scripted-ci.js';
import { makeTempDir, removeTempDir } from '../test/helpers/temp-dir.js';

const POLL_MS = 15_000;
/** The most status requests one poll pass sent for one commit, over the whole bench. */
let mostPerPoll = 0;
let passes = 0;
const GOAL_MS = 30_000;
const SAMPLES = Number(process.env.BENCH_GITEA_SAMPLES ?? 12);
const logger = pino({ level: 'silent' });

interface World {
  fake: FakeGiteaApi;
  dataDir: string;
  db: Db;
  app: App;
  ctx: AuthContext;
  key: QueueKey;
}

/** The service as `serve` builds it for the gitea forge, on the database in `dataDir`. */
function service(fake: FakeGiteaApi, dataDir: string, db: Db): App {
  const forge = new GiteaForge({
    url: fake.url,
    token: fake.token,
    git: createGitForge({ dataDir, logger, fetchTtlMs: 0 }),
    logger,
  });
  const ci = new ScriptedCi();
  const app = createApp({
    db,
    clock: systemClock,
    forges: { gitea: forge },
    webhookForges: ['gitea'],
    pollIntervalMs: POLL_MS,
    newId: randomUUID,
    createCi: (onStatus) => {
      ci.onStatus = onStatus;
      return ci;
    },
  });
  // Each poll pass counted: how many status requests it sent for each commit.
  const pass = app.poller.pollOnce.bind(app.poller);
  app.poller.pollOnce = async () => {
    const from = fake.calls.length;
    await pass();
    passes++;
    const perSha = new Map<string, number>();
    for (const c of fake.calls.slice(from)) {
      const sha = /^\/repos\/acme\/web\/commits\/([0-9a-f]{40})\/status/.exec(c.path)?.[1];
      if (c.method === 'GET' && sha) perSha.set(sha, (perSha.get(sha) ?? 0) + 1);
    }
    mostPerPoll = Math.max(mostPerPoll, ...perSha.values());
  };
  app.start();
  return app;
}

async function world(dialect: Dialect): Promise<World> {
  const fake = await FakeGiteaApi.start(dialect, dialect === 'gitea' ? { version: '1.26.1' } : {});
  fake.now = () => Date.now();
  fake.allowManualMerge = true;
  fake.protections.push({ rule_name: 'main', enable_status_check: true, status_check_contexts: ['ci/build'] });
  const dataDir = await makeTempDir(`greenline-bench-${dialect}-`);
  const db = connect({ databaseUrl: null, dataDir });
  await migrateToLatest(db);
  const org = await ensureOrg(db, 'acme', Date.now());
  await connectRepo(db, { org: 'acme', slug: '127.0.0.1/acme/web', forge: 'gitea', remote: fake.url }, Date.now());
  const app = service(fake, dataDir, db);
  const ctx: AuthContext = { orgId: org.id, orgName: org.name, tokenId: 'bench', scopes: EVERY_SCOPE };
  const key: QueueKey = { repo: { host: '127.0.0.1', owner: 'acme', name: 'web' }, targetBranch: 'main' };
  await app.service.createQueue(ctx, key, {});
  return { fake, dataDir, db, app, ctx, key };
}

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>): Promise<T> {
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    const got = await probe();
    if (got) return got;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await sleep(50);
  }
}

/** PR `n` opened, submitted and tested: the sha of its test commit. */
async function underTest(w: World, n: number): Promise<string> {
  const main = (await w.fake.branchSha('main'))!;
  await w.fake.openPr(n, { headSha: await w.fake.commit(main, { [`pr-${n}.txt`]: `${n}\n` }, `Change ${n}`) });
  await w.app.service.submitPullRequest(w.ctx, w.key, { prNumber: n });
  return until(`PR ${n} under test`, async () => {
    const { entry } = await w.app.service.getSubmittedPullRequest(w.ctx, w.key, { number: n });
    return entry.state === 'TESTING' && entry.runId
      ? w.fake.refSha(`refs/heads/greenline-merge/pr-${n}/${entry.runId}`)
      : null;
  });
}

const merged = (w: World, n: number) => until(`PR ${n} merged`, async () => w.fake.pull(n).merged);
interface Sample {
  latencyMs: number;
  fromStartMs?: number;
}

async function forgejo(): Promise<Sample[]> {
  const w = await world('forgejo');
  const samples: Sample[] = [];
  try {
    for (let n = 1; n <= SAMPLES; n++) {
      const sha = await underTest(w, n);
      await sleep(Math.random() * POLL_MS);
      w.fake.addStatus(sha, 'ci/build', 'success');
      const posted = Date.now();
      await merged(w, n);
      samples.push({ latencyMs: Date.now() - posted });
    }
  } finally {
    await close(w);
  }
  return samples;
}

async function giteaRestart(): Promise<Sample[]> {
  const w = await world('gitea');
  const samples: Sample[] = [];
  try {
    for (let n = 1; n <= SAMPLES; n++) {
      const sha = await underTest(w, n);
      await w.app.stop();
      w.fake.addStatus(sha, 'ci/build', 'success');
      const posted = Date.now();
      await sleep(1_000);
      const started = Date.now();
      w.app = service(w.fake, w.dataDir, w.db);
      await merged(w, n);
      const done = Date.now();
      samples.push({ latencyMs: done - posted, fromStartMs: done - started });
    }
  } finally {
    await close(w);
  }
  return samples;
}

async function close(w: World): Promise<void> {
  await w.app.stop();
  await w.db.destroy();
  await w.fake.close();
  await removeTempDir(w.dataDir);
}

/** The `q` quantile of `xs` (nearest rank). */
const quantile = (xs: number[], q: number): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
};
const p95 = (xs: number[]): number => quantile(xs, 0.95);
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function report(name: string, samples: Sample[]): void {
  const latencies = samples.map((x) => x.latencyMs);
  console.log(`${name} (${samples.length} PRs, poll every ${s(POLL_MS)})`);
  console.log(
    `  final status → merged: median ${s(quantile(latencies, 0.5))}, p95 ${s(p95(latencies))}, max ${s(Math.max(...latencies))}; goal p95 ≤ ${s(GOAL_MS)}: ${p95(latencies) <= GOAL_MS ? 'met' : 'NO'}`,
  );
  const fromStart = samples.flatMap((x) => (x.fromStartMs === undefined ? [] : [x.fromStartMs]));
  if (fromStart.length > 0) console.log(`  start → merged: p95 ${s(p95(fromStart))}, max ${s(Math.max(...fromStart))}`);
}

report('Forgejo (no status event)', await forgejo());
report('Gitea, restarted after missing the delivery', await giteaRestart());
console.log(
  `status requests for one run in one poll pass, at most: ${mostPerPoll} (over ${passes} passes); goal ≤ 1: ${mostPerPoll <= 1 ? 'met' : 'NO'}`,
);
expectNoViolations();
