/**
 * HTTP throughput of the v1 API against a bare Fastify JSON route, measured in the same run.
 *
 * Setup: the real service over a SQLite file (WAL), fake forge and CI (the forge is not what is
 * measured), one queue holding 1,000 submitted PRs, the app listening on 127.0.0.1 with logging off.
 * Baseline: a Fastify instance with one POST route that parses a JSON body and answers a small JSON
 * object — the floor any JSON endpoint pays. Load: autocannon, 10 connections, in this process.
 * - read:  getSubmittedPullRequest, PR numbers rotating over the 1,000 (token check + queue read)
 * - write: submitPullRequest re-submitting those PRs with a rotating priority (a real state change,
 *          persisted with its outbox in one transaction; requests that arrive together share one
 *          decision and one commit — the run prints how many requests each commit carried)
 * - read, HTTP layer only: the same requests, the service's answers memoised in memory — separates
 *          the cost of the HTTP layer (auth hook, parsing, validation, wire mapping, serialisation)
 *          from the cost of the service and the store
 * - admission: submitPullRequest of open PRs never submitted before, into a second queue (branch
 *          `release`, empty at the start) — each request a fresh admission of a new entry
 * - v2 read:  GET /v2/pull-requests/{id}, the same PRs as the v1 read, by their v2 ids (Bearer token)
 * - v2 admission: POST /v2/merge-queues/{id}/pull-requests, the same as the v1 admission into the same
 *          queue, of other open PRs never submitted before (v2's submit of a queued PR is 409
 *          PR_ALREADY_ENQUEUED); the v2 answer is the pull request with its new entry, v1's is `{}`
 * - v2 reprioritize: POST /v2/pull-requests/{id}/reprioritize with the v1 write's rotating priority:
 *          v2's way to change a queued PR, beside v1's re-submit
 * Each v2 figure is printed beside its v1 counterpart's as a ratio.
 * The endpoints take turns in one-second slices, round after round, so that a change in the load of a
 * shared machine falls on all of them alike; req/s is all requests over all slices of an endpoint, p99
 * is over all its responses. On a machine shared with other work, req/s also depends on how much CPU
 * this process was given; requests per CPU-second of this process (server and load generator) do not,
 * and are printed beside.
 * Goals: reads ≥ 60% of bare req/s, writes ≥ 35%, p99 < 20 ms.
 *
 * Run: npm run bench:api [-- seconds per endpoint, default 5]   (prints only; no thresholds enforced)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import { buildHttpApp } from '../src/api/build-app.js';
import type { MergeQueueService } from '../src/app/service-port.js';
import { createTestService } from '../test/helpers/service.js';

const PRS = 1_000;
const ROUNDS = Number(process.argv[2] ?? 5);
const SLUG = 'github.com/acme/web';
const REPO = { host: 'github.com', owner: 'acme', name: 'web' };
const PRIORITIES = ['low', 'medium', 'high'];
/** Open PRs kept for each side's admissions: more than a side submits in ROUNDS one-second slices. */
const FRESH = 8_000 * ROUNDS;
const V1_FRESH = 100_001;
const V2_FRESH = V1_FRESH + FRESH;

interface Endpoint {
  name: string;
  url: string;
  body: (i: number) => unknown;
  /** GET, or POST (the default) of `body`; `path` (when given) names each request's path. */
  method?: 'GET' | 'POST';
  path?: (i: number) => string;
  headers: Record<string, string>;
  /** Requests sent so far: the next body continues the rotation where the last slice stopped. */
  sent: number;
  completed: number;
  seconds: number;
  /** CPU time this process spent during the endpoint's slices, in seconds. */
  cpuSeconds: number;
  errors: number;
  /** Decisions committed during the endpoint's slices (queue versions). */
  commits: number;
  latencies: number[];
}

/** One one-second slice of load on an endpoint; its figures are added to the endpoint's. */
function slice(e: Endpoint): Promise<void> {
  const cpu = process.cpuUsage();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: e.url,
        connections: 10,
        duration: 1,
        method: e.method ?? 'POST',
        headers: { ...(e.method === 'GET' ? {} : { 'content-type': 'application/json' }), ...e.headers },
        requests: [
          {
            setupRequest: (req) => {
              const i = e.sent++;
              return {
                ...req,
                ...(e.path ? { path: e.path(i) } : {}),
                ...(e.method === 'GET' ? {} : { body: JSON.stringify(e.body(i)) }),
              };
            },
          },
        ],
      },
      (err, result) => {
        if (err) return reject(err);
        const used = process.cpuUsage(cpu);
        e.cpuSeconds += (used.user + used.system) / 1e6;
        e.completed += result.requests.total;
        e.seconds += result.duration;
        e.errors += result.errors + result.non2xx;
        resolve();
      },
    );
    instance.on('response', (_client, _status, _bytes, responseTime) => {
      e.latencies.push(responseTime);
    });
  });
}

function p99(latencies: number[]): number {
  const sorted = Float64Array.from(latencies).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? NaN;
}

/** The real service with authenticate and getSubmittedPullRequest answered from a memo after the first call. */
function memoised(service: MergeQueueService): MergeQueueService {
  const memo = new Map<string, Promise<unknown>>();
  const once = <T>(key: string, compute: () => Promise<T>): Promise<T> => {
    if (!memo.has(key)) memo.set(key, compute());
    return memo.get(key) as Promise<T>;
  };
  return Object.assign(Object.create(service) as MergeQueueService, {
    authenticate: (token: string) => once(`auth ${token}`, () => service.authenticate(token)),
    getSubmittedPullRequest: ((ctx, key, pr) =>
      once(`pr ${JSON.stringify(pr)}`, () =>
        service.getSubmittedPullRequest(ctx, key, pr),
      )) as MergeQueueService['getSubmittedPullRequest'],
  });
}

async function main(): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'greenline-bench-api-'));
  const t = await createTestService({ databaseUrl: `sqlite:${path.join(dir, 'greenline.db')}` });
  const bare = Fastify();
  bare.post('/bare', async (request) => ({ ok: true, size: JSON.stringify(request.body).length }));
  // The v2 request limit is lifted: the load generator is one organization.
  const app = await buildHttpApp({
    service: t.service,
    logger: false,
    enumCase: 'upper',
    v2Limits: { perSecond: 1_000_000, metricsPerSecond: 5 },
  });
  const layerOnly = await buildHttpApp({ service: memoised(t.service), logger: false, enumCase: 'upper' });
  try {
    const { token, ctx } = await t.createOrg('acme');
    const repo = (await t.service.directory.repo(ctx, (await t.connectRepo('acme', SLUG)).id))!;
    const key = t.key(SLUG);
    await t.service.createQueue(ctx, key, { concurrency: 10 });
    const started = Date.now();
    for (let n = 1; n <= PRS; n++) {
      t.forge.openPr(SLUG, { number: n });
      await t.service.submitPullRequest(ctx, key, { prNumber: n });
    }
    await t.runEffects();
    await t.service.createQueue(ctx, { repo: REPO, targetBranch: 'release' }, { concurrency: 10 });
    for (let n = V1_FRESH; n < V2_FRESH + FRESH; n++) t.forge.openPr(SLUG, { number: n, baseBranch: 'release' });
    const release = (await t.service.directory.queueOf(repo, 'release'))!;
    console.log(`setup: ${PRS} PRs submitted in ${((Date.now() - started) / 1000).toFixed(1)} s`);

    const bareUrl = `${await bare.listen({ port: 0, host: '127.0.0.1' })}/bare`;
    const apiUrl = await app.listen({ port: 0, host: '127.0.0.1' });
    const layerUrl = await layerOnly.listen({ port: 0, host: '127.0.0.1' });
    const auth = { 'x-api-token': token };
    const pr = (i: number) => ({ number: (i % PRS) + 1 });
    const endpoint = (
      name: string,
      url: string,
      body: (i: number) => unknown,
      headers: Record<string, string> = {},
    ): Endpoint => ({
      name,
      url,
      body,
      headers,
      sent: 0,
      completed: 0,
      seconds: 0,
      cpuSeconds: 0,
      errors: 0,
      commits: 0,
      latencies: [],
    });

    const baseline = endpoint('bare Fastify JSON route', bareUrl, (i) => ({
      repo: REPO,
      targetBranch: 'main',
      pr: pr(i),
    }));
    const read = endpoint(
      'getSubmittedPullRequest',
      `${apiUrl}/v1/getSubmittedPullRequest`,
      (i) => ({ repo: REPO, targetBranch: 'main', pr: pr(i) }),
      auth,
    );
    const layer = endpoint(
      '  HTTP layer only',
      `${layerUrl}/v1/getSubmittedPullRequest`,
      (i) => ({ repo: REPO, targetBranch: 'main', pr: pr(i) }),
      auth,
    );
    const write = endpoint(
      'submitPullRequest',
      `${apiUrl}/v1/submitPullRequest`,
      (i) => ({ repo: REPO, targetBranch: 'main', pr: pr(i), priority: PRIORITIES[i % PRIORITIES.length] }),
      auth,
    );
    const ids = await t.service.directory.pullRequestIds(
      repo,
      Array.from({ length: PRS }, (_, n) => n + 1),
    );
    const idOf = (i: number) => ids.get(pr(i).number)!;
    const bearer = { authorization: `Bearer ${token}` };
    const v2Read = {
      ...endpoint('v2 GET pull-requests/{id}', apiUrl, () => undefined, bearer),
      method: 'GET' as const,
      path: (i: number) => `/v2/pull-requests/${idOf(i)}`,
    };
    const v2Write = {
      ...endpoint('v2 reprioritize', apiUrl, (i) => ({ priorityName: PRIORITIES[i % PRIORITIES.length] }), bearer),
      path: (i: number) => `/v2/pull-requests/${idOf(i)}/reprioritize`,
    };
    const admit = endpoint(
      'submitPullRequest (new)',
      `${apiUrl}/v1/submitPullRequest`,
      (i) => ({ repo: REPO, targetBranch: 'release', pr: { number: V1_FRESH + i } }),
      auth,
    );
    const v2Admit = endpoint(
      'v2 submit (new)',
      `${apiUrl}/v2/merge-queues/${release.shortId}/pull-requests`,
      (i) => ({ number: V2_FRESH + i }),
      bearer,
    );
    const all = [baseline, read, layer, write, admit, v2Read, v2Admit, v2Write];
    const version = async (branch = 'main') => (await t.service.directory.queueOf(repo, branch))!.target.queue.version;
    const versionBefore = await version();
    const admittedBefore = await version('release');
    for (let round = 0; round < ROUNDS; round++) {
      for (const e of all) {
        const before = (await version()) + (await version('release'));
        await slice(e);
        e.commits += (await version()) + (await version('release')) - before;
      }
    }

    console.log(`\n${ROUNDS} rounds of 1 s per endpoint, 10 connections, ${PRS} PRs in the queue (SQLite file)\n`);
    console.log(
      'endpoint                    req/s   p99 ms   % of bare (goal)   p99 goal   errors   req/CPU-s   % of bare',
    );
    const goals: Record<string, string> = {
      [read.name]: '≥ 60%',
      [layer.name]: '≥ 60%',
      [write.name]: '≥ 35%',
      [v2Read.name]: '≥ 60%',
      [v2Write.name]: '≥ 35%',
      [admit.name]: '≥ 35%',
      [v2Admit.name]: '≥ 35%',
    };
    const rps = (e: Endpoint) => e.completed / e.seconds;
    const perCpu = (e: Endpoint) => e.completed / e.cpuSeconds;
    const percent = (e: Endpoint, of: (e: Endpoint) => number) => `${((of(e) / of(baseline)) * 100).toFixed(0)}%`;
    for (const m of all) {
      const ratio = m === baseline ? '' : `${percent(m, rps)} (${goals[m.name]})`;
      const p99Goal = m === baseline ? '' : `< 20 ms`;
      const cpuRatio = m === baseline ? '' : percent(m, perCpu);
      console.log(
        `${m.name.padEnd(26)} ${rps(m).toFixed(0).padStart(7)} ${p99(m.latencies).toFixed(0).padStart(8)}   ${ratio.padEnd(16)}   ${p99Goal.padEnd(8)}   ${String(m.errors).padStart(6)}   ${perCpu(m).toFixed(0).padStart(9)}   ${cpuRatio.padStart(9)}`,
      );
    }
    for (const [v2, v1] of [
      [v2Read, read],
      [v2Admit, admit],
      [v2Write, write],
    ] as const)
      console.log(
        `${v2.name}: ${((rps(v2) / rps(v1)) * 100).toFixed(0)}% of ${v1.name}'s req/s, ${((perCpu(v2) / perCpu(v1)) * 100).toFixed(0)}% of its req/CPU-s (goal: within 10%)${v1.commits > 0 ? `; ${(v2.completed / v2.commits).toFixed(1)} and ${(v1.completed / v1.commits).toFixed(1)} requests per commit` : ''}`,
      );
    // Each commit of a decision bumps the queue's version once; only the writes change this queue.
    const commits = (await version()) - versionBefore;
    console.log(
      `\nsubmitPullRequest and v2 reprioritize: ${write.completed + v2Write.completed} requests in ${commits} commits (${((write.completed + v2Write.completed) / commits).toFixed(1)} requests per decision and transaction)`,
    );
    const admitted = (await version('release')) - admittedBefore;
    console.log(
      `admissions (v1 and v2): ${admit.completed + v2Admit.completed} requests in ${admitted} commits (${((admit.completed + v2Admit.completed) / admitted).toFixed(1)} per decision and transaction)`,
    );
  } finally {
    await app.close();
    await layerOnly.close();
    await bare.close();
    await t.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await main();
