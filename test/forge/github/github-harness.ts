/**
 * The real service over in-memory SQLite with the real github forge talking to the FAKE GitHub API
 * (fake-github-api.ts) through an injected fetch, and the real webhook endpoint fed signed deliveries
 * (each payload checked against GitHub's webhook schema of its event and action). Nothing runs in the
 * background: tests call runEffects(), and `deliver` processes the delivery it posted (the endpoint only
 * stores it) before it returns.
 */
import { expect } from 'vitest';
import { sign } from '@octokit/webhooks-methods';
import Bottleneck from 'bottleneck';
import type { FastifyInstance } from 'fastify';
import { DEFAULT_CONFIG } from '../../../src/config/schema.js';
import { GitHubForge, type GitHubForgeOptions } from '../../../src/forge/github/github-forge.js';
import { githubForge } from '../../../src/forge/github/index.js';
import { readGitHubDelivery } from '../../../src/forge/github/observations.js';
import { buildHttpApp } from '../../../src/api/build-app.js';
import { ForgePoller, type ForgePollerDeps } from '../../../src/app/observing/forge-poller.js';
import type { ForgeWebhooks } from '../../../src/app/observing/forge-webhooks.js';
import type { App } from '../../../src/app/create-app.js';
import type { ManualClock } from '../../../src/lib/clock.js';
import type { Db } from '../../../src/store/connect.js';
import type { ConnectRepoRequest } from '../../../src/app/admin/repo-admin.js';
import type { AuthContext, QueueKey } from '../../../src/app/service-port.js';
import type { QueueEventPayload, TransitionReason } from '../../../src/engine/types.js';
import type { RepoBinding } from '../../../src/forge/port.js';
import { checkDelivery, FakeGitHubApi } from './fake-github-api.js';
import type { Json } from '../../helpers/json.js';
import { serviceOverForge, silentLogger } from '../../helpers/service-over-forge.js';

export const SECRET = 'It is a secret to everybody';
export const logger = silentLogger;

/** Options that keep rate-limit and retry waits in milliseconds, and no spacing between writes. */
export function quickLimits(): Pick<GitHubForgeOptions, 'throttle' | 'retry' | 'asyncMergePolling'> {
  return {
    asyncMergePolling: { intervalMs: 5, reads: 5 },
    throttle: {
      retryAfterBaseValue: 1,
      write: new Bottleneck.Group({ maxConcurrent: 1, minTime: 0 }),
      notifications: new Bottleneck.Group({ maxConcurrent: 1, minTime: 0 }),
    },
    retry: { retryAfterBaseValue: 1 },
  };
}

export function makeForge(api: FakeGitHubApi, more: Partial<GitHubForgeOptions> = {}): GitHubForge {
  return new GitHubForge({
    testPrTitle: DEFAULT_CONFIG.githubTestPrTitle,
    auth: { kind: 'token', token: 'ghp_test' },
    baseUrl: api.baseUrl,
    logger,
    fetch: api.fetch,
    ...quickLimits(),
    ...more,
  });
}

/** A queue event about PR `pr` alone (no run, no batch), as the engine emits it. */
export const prEvent = (
  type: QueueEventPayload['type'],
  pr = 1,
  reason: TransitionReason | null = null,
): QueueEventPayload => ({
  type,
  at: 0,
  prNumbers: [pr],
  prNumbersInBatch: [pr],
  runId: null,
  testBranch: null,
  testBranchSha: null,
  reason,
  batched: false,
  isBisection: false,
});

export function bindingFor(api: FakeGitHubApi, more: Partial<RepoBinding> = {}): RepoBinding {
  return {
    id: 'repo-1',
    org: 'org-1',
    repo: { host: 'github.com', owner: api.owner, name: api.repo },
    forge: 'github',
    remote: null,
    prRefPattern: 'refs/pull/{n}/head',
    ciCommand: null,
    testBranchPrefix: 'greenline-merge',
    ...more,
  };
}

export interface GitHubHarness {
  api: FakeGitHubApi;
  forge: GitHubForge;
  db: Db;
  app: App;
  clock: ManualClock;
  http: FastifyInstance;
  ctx: AuthContext;
  key: QueueKey;
  runEffects(): Promise<void>;
  /** The worker that processes the stored webhook deliveries. */
  webhooks: ForgeWebhooks;
  /**
   * POSTs a delivery to /webhooks/github, signed with SECRET unless told otherwise, then processes the
   * stored deliveries. `result`: what processing it did (`processed`, `ignored`), or the endpoint's
   * answer when it was not stored (`duplicate`, `ignored`).
   */
  deliver(
    event: string,
    payload: unknown,
    opts?: { id?: string; signature?: string | null; tamper?: boolean },
  ): Promise<{ status: number; body: Json; result?: string }>;
  close(): Promise<void>;
}

export async function createGitHubHarness(
  opts: { api?: FakeGitHubApi; connect?: Partial<ConnectRepoRequest>; forge?: Partial<GitHubForgeOptions> } = {},
): Promise<GitHubHarness> {
  const api = opts.api ?? new FakeGitHubApi();
  let forge!: GitHubForge;
  const {
    db,
    clock,
    app,
    ctx,
    webhooks: workerOf,
    close,
  } = await serviceOverForge({
    forge: 'github',
    adapter: (clock) => {
      forge = makeForge(api, { clock, ...opts.forge });
      return forge;
    },
    connect: { slug: `github.com/${api.owner}/${api.repo}`, ...opts.connect },
    pollIntervalMs: 60_000,
  });
  api.now = () => clock.now(); // rate-limit windows and timestamps on the service's clock
  const webhooks = workerOf({
    translate: readGitHubDelivery,
    observeAccess: (event, payload) => forge.observeAccess(event, payload),
  });
  const http = await buildHttpApp({
    service: app.service,
    logger: false,
    enumCase: 'upper',
    forgeWebhooks: [{ webhook: githubForge.webhook!, secret: SECRET, receive: webhooks.receive }],
  });
  let deliveries = 0;
  return {
    api,
    forge,
    db,
    app,
    clock,
    http,
    ctx,
    key: { repo: { host: 'github.com', owner: api.owner, name: api.repo }, targetBranch: 'main' },
    runEffects: () => app.runner.drain(),
    webhooks,
    async deliver(event, payload, o = {}) {
      checkDelivery(event, payload);
      const body = JSON.stringify(payload);
      const signature = o.signature === undefined ? await sign(SECRET, body) : o.signature;
      // Tampered: the same payload with a field added after it was signed.
      const sent = o.tamper ? `${body.slice(0, -1)},"tampered":true}` : body;
      const id = o.id ?? `delivery-${++deliveries}`;
      const res = await http.inject({
        method: 'POST',
        url: '/webhooks/github',
        payload: sent,
        headers: {
          'content-type': 'application/json',
          'x-github-event': event,
          'x-github-delivery': id,
          ...(signature !== null ? { 'x-hub-signature-256': signature } : {}),
        },
      });
      const answer = res.json<Json>();
      if (answer?.result !== 'accepted') return { status: res.statusCode, body: answer, result: answer?.result };
      await webhooks.drain();
      const row = await db.selectFrom('forge_deliveries').select('result').where('id', '=', id).executeTakeFirst();
      return { status: res.statusCode, body: answer, result: row?.result ?? 'pending' };
    },
    async close() {
      await http.close();
      await close();
    },
  };
}

/**
 * A harness with one PR ready to queue: main at a root commit (`base`), PR 1 "Add a feature" on top
 * of it (`head1`), `build` required by main's branch protection, and main's queue created.
 */
export async function createOnePrHarness(): Promise<{ h: GitHubHarness; base: string; head1: string }> {
  const h = await createGitHubHarness();
  const base = h.api.commit(null, 'base');
  h.api.branches.set('main', base);
  const head1 = h.api.commit(base, 'pr1');
  h.api.openPr(1, { headSha: head1, title: 'Add a feature' });
  h.api.requiredChecks.set('main', ['build']);
  await h.app.service.createQueue(h.ctx, h.key, {});
  return { h, base, head1 };
}

/** Submits PR 1 and runs effects until it is testing; returns its run id, test branch and test sha. */
export async function submitAndTest(h: GitHubHarness): Promise<{ run: string; branch: string; testSha: string }> {
  await h.app.service.submitPullRequest(h.ctx, h.key, { prNumber: 1 });
  await h.runEffects();
  const { entry } = await h.app.service.getSubmittedPullRequest(h.ctx, h.key, { number: 1 });
  expect(entry.state).toBe('TESTING');
  const branch = `greenline-merge/pr-1/${entry.runId}`;
  return { run: entry.runId!, branch, testSha: h.api.branches.get(branch)! };
}

/** A forge poller over the harness's service and clock, with the pace given (what the service's own poller is, made to measure). */
export function pollerOf(
  h: GitHubHarness,
  pace: Pick<ForgePollerDeps, 'intervalMs' | 'webhookForges' | 'safetyNetMaxMs'>,
): ForgePoller {
  return new ForgePoller({
    db: h.db,
    adapters: h.app.adapters,
    ciOutcome: h.app.ciOutcome,
    executor: h.app.executor,
    clock: h.clock,
    leases: h.app.leases,
    ...pace,
  });
}
