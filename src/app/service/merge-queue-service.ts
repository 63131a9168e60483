/**
 * The MergeQueueService (src/app/service-port.ts) over the store, the per-queue executor and the adapters,
 * following contract §2 endpoint by endpoint. Every state change goes through the engine.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Logger } from 'pino';
import { newQueueSnapshot } from '../../engine/config.js';
import { parsePriority, queueOrder, readiness, type PrOutlook } from '../../engine/index.js';
import {
  PrState,
  TERMINAL_STATES,
  isTerminal,
  type Entry,
  type ImpactedTargets,
  type QueueConfig,
  type RepoRef,
  type SubmittedReason,
} from '../../engine/types.js';
import { HttpError } from '../../errors.js';
import type { CiStatus } from '../../ports.js';
import type { Database, RepoRow } from '../../store/database.js';
import {
  findEntryByBranch,
  findEntryById,
  findPrOfQueue,
  listActiveEntriesAtSha,
  listActivePrNumbers,
  listEntriesPage,
} from '../../store/entries.js';
import { findImpactedTargets, upsertImpactedTargets } from '../../store/impacted-targets.js';
import { deleteQueueRow, findQueue, findQueueById, insertQueue, markConfigWrite } from '../../store/queues.js';
import { findRepo } from '../../store/repos.js';
import { forgeFor, type Adapters } from '../adapters.js';
import { ApiDirectory } from '../read-models/api-directory.js';
import { listConcluded, type ConcludedPage, type ConcludedQuery } from '../read-models/concluded-prs.js';
import { failedCheckUrl, type CiOutcome } from '../executor/ci-outcome.js';
import type { Clock } from '../../lib/clock.js';
import {
  listQueueSummaries,
  queueActivity,
  queueHistory,
  type QueueActivity,
  type QueueHistory,
  type QueueSummary,
} from '../read-models/queue-activity.js';
import { renderMetrics } from '../read-models/metrics.js';
import { outlookOf } from '../executor/pr-outlook.js';
import { prReason } from '../read-models/pr-reason.js';
import type { QueueExecutor } from '../executor/queue-executor.js';
import { WebhookAdmin } from '../../webhooks/admin.js';
import { NotifyAdmin } from '../../notify/admin.js';
import type { UrlPolicy } from '../../delivery/url-policy.js';
import { configOfRow, queueOfOrg, repoOfOrg } from '../read-models/queue-lookup.js';
import { bindingOf, repoRefOf, repoSlug } from '../repo-binding.js';
import { assertPrNumber, configPatch, isBranchName } from './request-checks.js';
import { refreshTarget } from '../forge/target-refresh.js';
import { reportStatus, runOfQueue, testingDetails } from '../read-models/test-run-details.js';
import { TokenCache } from '../admin/tokens.js';
import type {
  AuthContext,
  ConfigSource,
  ListPullRequestsQuery,
  MergeQueueService,
  PrView,
  QueueKey,
  QueueTarget,
  QueueUpdate,
  QueueView,
  TestRunView,
  WrittenEntry,
} from '../service-port.js';

export interface ServiceDeps {
  db: Kysely<Database>;
  executor: QueueExecutor;
  adapters: Adapters;
  ciOutcome: CiOutcome;
  clock: Clock;
  newId: () => string;
  logger?: Logger;
  /** Where webhooks may be sent (default: any host but link-local and cloud metadata addresses). */
  webhookPolicy?: UrlPolicy;
  /** Told when webhook deliveries became due (a redelivery). */
  onWebhookWork?: () => void;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

export class GreenlineService implements MergeQueueService {
  private readonly tokens: TokenCache;
  readonly webhooks: WebhookAdmin;
  readonly notifications: NotifyAdmin;
  readonly directory: ApiDirectory;

  constructor(private readonly deps: ServiceDeps) {
    this.tokens = new TokenCache(deps.db, deps.clock);
    this.directory = new ApiDirectory({ db: deps.db, clock: deps.clock, adapters: deps.adapters });
    this.notifications = new NotifyAdmin({
      db: deps.db,
      clock: deps.clock,
      ...(deps.webhookPolicy ? { policy: deps.webhookPolicy } : {}),
    });
    this.webhooks = new WebhookAdmin({
      db: deps.db,
      clock: deps.clock,
      ...(deps.webhookPolicy ? { policy: deps.webhookPolicy } : {}),
      ...(deps.onWebhookWork ? { onWork: deps.onWebhookWork } : {}),
    });
  }

  authenticate(token: string): Promise<AuthContext | null> {
    return this.tokens.authenticate(token);
  }

  // ------------------------------------------------------------------ queues (contract §2.8–§2.11)

  async createQueue(
    ctx: AuthContext,
    key: QueueKey,
    config: Pick<Partial<QueueConfig>, 'mode' | 'concurrency'>,
    source: ConfigSource = 'other',
  ): Promise<void> {
    const { db, clock, newId } = this.deps;
    const repo = await repoOfOrg(db, ctx, key.repo);
    const patch = configPatch({ mode: config.mode, concurrency: config.concurrency });
    if (!isBranchName(key.targetBranch)) {
      throw new HttpError(
        'VALIDATION_FAILED',
        `targetBranch ${JSON.stringify(key.targetBranch)} is not a valid branch name`,
      );
    }
    if (await findQueue(db, repo.id, key.targetBranch)) throw new HttpError('QUEUE_EXISTS', key.targetBranch);
    const s = newQueueSnapshot(repoRefOf(repo), key.targetBranch, patch, repo.test_branch_prefix);
    const now = clock.now();
    const id = newId();
    try {
      await insertQueue(db, {
        id,
        repo_id: repo.id,
        target_branch: key.targetBranch,
        state: s.state,
        config: JSON.stringify(s.config),
        target_sha: null,
        internal: JSON.stringify(s.internal),
        version: 0,
        created_at: now,
        updated_at: now,
        managed_by: source === 'terraform' ? 'terraform' : null,
      });
    } catch (err) {
      // Lost a race with a concurrent create of the same queue (unique repo + branch).
      if (await findQueue(db, repo.id, key.targetBranch)) throw new HttpError('QUEUE_EXISTS', key.targetBranch);
      throw err;
    }
    await refreshTarget(this.deps, (await findQueueById(db, id))!, repo).catch((err: unknown) =>
      this.deps.logger?.warn(
        { err, branch: key.targetBranch },
        'target branch not readable yet; the poller will retry',
      ),
    );
  }

  async getQueue(ctx: AuthContext, key: QueueKey): Promise<QueueView> {
    const { queue } = await queueOfOrg(this.deps.db, ctx, key);
    return this.view(queue.id, queue.version);
  }

  async updateQueue(
    ctx: AuthContext,
    key: QueueKey,
    update: QueueUpdate,
    source: ConfigSource = 'other',
  ): Promise<QueueView> {
    const { queue } = await queueOfOrg(this.deps.db, ctx, key);
    const { state, deleteRequiredStatuses, requiredStatuses, ...rest } = update;
    // A list, empty or not, is the override (empty: no check required); deleteRequiredStatuses clears it.
    const patch = configPatch({
      ...rest,
      ...(requiredStatuses ? { requiredStatuses } : {}),
      ...(deleteRequiredStatuses ? { requiredStatuses: null } : {}),
    });
    if (state !== undefined && !['RUNNING', 'PAUSED', 'DRAINING'].includes(state)) {
      throw new HttpError('VALIDATION_FAILED', 'state must be one of RUNNING, PAUSED, DRAINING');
    }
    const at = this.deps.clock.now();
    // Who wrote is recorded with the write itself, in its transaction (contract §2.10).
    const marked = {
      alsoInTransaction: (trx: Transaction<Database>) => markConfigWrite(trx, queue.id, source === 'terraform', at),
    };
    if (Object.keys(patch).length > 0)
      await this.deps.executor.applyOrThrow(queue.id, { kind: 'updateConfig', at, patch }, marked);
    if (state !== undefined) await this.deps.executor.applyOrThrow(queue.id, { kind: 'setState', at, state }, marked);
    return this.view(queue.id);
  }

  async deleteQueue(ctx: AuthContext, key: QueueKey): Promise<void> {
    const { db, executor } = this.deps;
    const { queue } = await queueOfOrg(db, ctx, key);
    await executor.serial(queue.id, async () => {
      const prs = await listActivePrNumbers(db, queue.id, TERMINAL_STATES);
      if (prs.length > 0) {
        throw new HttpError(
          'QUEUE_NOT_EMPTY',
          `${plural(prs.length, 'pull request')} (${prs.map((n) => `#${n}`).join(', ')})`,
        );
      }
      await deleteQueueRow(db, queue.id);
      await this.directory.forgetQueue(queue.id);
      executor.forget(queue.id);
    });
  }

  // ------------------------------------------------------------------ pull requests (§2.1–§2.6)

  async submitPullRequest(
    ctx: AuthContext,
    key: QueueTarget,
    req: {
      prNumber: number;
      priority?: number | string | null;
      noBatch?: boolean;
      forceEnqueued?: boolean;
      reason?: SubmittedReason;
    },
  ): Promise<WrittenEntry | undefined> {
    const { db, adapters, executor, clock, newId } = this.deps;
    assertPrNumber(req.prNumber);
    const priority = parsePriority(req.priority);
    if (!priority.ok) throw new HttpError('VALIDATION_FAILED', priority.message);
    const { repo, queue } = await queueOfOrg(db, ctx, key);
    const binding = bindingOf(repo);
    const forge = forgeFor(adapters, binding);
    let pr = await forge.getPullRequest(binding, req.prNumber, queue.target_branch);
    if (!pr)
      throw new HttpError('PR_NOT_FOUND', `Pull request #${req.prNumber} does not exist in ${repo.owner}/${repo.name}`);
    const { entries, config } = await executor.read(queue.id, queue.version);
    // The poller watches only queues that hold PRs: an idle queue's head may be stale.
    if (queue.target_sha === null || entries.length === 0) await refreshTarget(this.deps, queue, repo);
    // Direct merge (contract §6.9): the engine merges the PR at once when these facts allow it.
    if (config.directMergeMode === 'always' && forge.directMergeFacts)
      pr = { ...pr, ...(await forge.directMergeFacts(binding, pr)) };
    // A PR submitted before keeps its entry id: the engine takes it from the PR's entry (the executor
    // adds its previous trip), so the new id is used only for a PR's first submission.
    let snapshot = await executor.applyOrThrow(queue.id, {
      kind: 'submit',
      at: clock.now(),
      entryId: newId(),
      pr,
      reason: req.reason ?? 'API_REQUESTED',
      ...(req.priority !== undefined ? { priority: priority.usedDefault ? null : priority.value } : {}),
      ...(req.noBatch !== undefined ? { noBatch: req.noBatch } : {}),
      ...(req.forceEnqueued !== undefined ? { forceEnqueued: req.forceEnqueued } : {}),
    });
    // Targets are often uploaded before the submission (contract §2.6): apply those for this head.
    const targets = await findImpactedTargets(db, repo.id, pr.number, pr.headSha);
    if (targets) {
      const applied = await executor.apply(queue.id, {
        kind: 'impactedTargets',
        at: clock.now(),
        prNumber: pr.number,
        headSha: pr.headSha,
        targets,
      });
      if (applied.ok) snapshot = applied.snapshot;
    }
    const entry = snapshot.entries.find((e) => e.prNumber === pr.number);
    return entry && { queueId: queue.id, targetBranch: queue.target_branch, config: snapshot.config, entry };
  }

  async cancelPullRequest(
    ctx: AuthContext,
    key: QueueKey,
    prNumber: number,
    reason: 'API_REQUESTED' | 'USER_REQUESTED' = 'API_REQUESTED',
  ): Promise<void> {
    assertPrNumber(prNumber);
    const { queue } = await queueOfOrg(this.deps.db, ctx, key);
    const who = ctx.tokenName !== undefined ? { detail: `by API token "${ctx.tokenName}"` } : {};
    await this.deps.executor.applyOrThrow(queue.id, {
      kind: 'cancel',
      at: this.deps.clock.now(),
      prNumber,
      reason,
      ...who,
    });
  }

  async restartTestsOnPullRequest(ctx: AuthContext, key: QueueKey, prNumber: number): Promise<void> {
    assertPrNumber(prNumber);
    const { queue } = await queueOfOrg(this.deps.db, ctx, key);
    await this.deps.executor.applyOrThrow(queue.id, {
      kind: 'restart',
      at: this.deps.clock.now(),
      prNumber,
      reason: 'TESTS_RESTARTED_BY_API_REQUEST',
    });
  }

  async getSubmittedPullRequest(
    ctx: AuthContext,
    key: QueueKey,
    pr: { number: number } | { branch: string },
  ): Promise<PrView> {
    // One query: the committed entry is what the queue's snapshot holds (or, terminal, no longer holds).
    const wanted = 'number' in pr && Number.isSafeInteger(pr.number) ? pr.number : -1;
    const found = await findPrOfQueue(this.deps.db, key.repo, key.targetBranch, wanted);
    if (!found || found.orgId !== ctx.orgId) throw new HttpError('REPO_NOT_FOUND', repoSlug(key.repo));
    if (!found.queue) throw new HttpError('QUEUE_NOT_FOUND', key.targetBranch);
    let entry: Entry | undefined;
    if ('number' in pr) {
      assertPrNumber(pr.number, 0);
      entry = found.entry;
      if (!entry) throw new HttpError('PR_NOT_SUBMITTED', `#${pr.number}`);
    } else {
      // The forge reports head branches with the PR (github; git with a --pr-ref-pattern under refs/heads/).
      entry = await findEntryByBranch(this.deps.db, found.queue.id, pr.branch, TERMINAL_STATES);
      if (!entry) throw new HttpError('PR_NOT_SUBMITTED', `from branch ${JSON.stringify(pr.branch)}`);
    }
    const queue = { targetBranch: key.targetBranch, config: configOfRow(found.queue) };
    const runId = entry.timeline.at(-1)?.runId;
    const url =
      entry.lastReason === 'TEST_RUN_REQUIRED_STATUS_FAILED' && runId
        ? await failedCheckUrl(this.deps.db, runId)
        : null;
    const active = !isTerminal(entry.state);
    return {
      entry,
      readiness: readiness(queue, entry),
      isCurrentlySubmittedToQueue: active,
      reason: prReason(queue, entry, url, this.deps.clock.now()),
      outlook: active ? ((await this.outlook(found.queue.id)).get(entry.prNumber) ?? null) : null,
      site: found.site,
    };
  }

  async listPullRequests(
    ctx: AuthContext,
    key: QueueKey,
    query: ListPullRequestsQuery,
  ): Promise<{ items: Entry[]; nextCursor?: string; outlook: ReadonlyMap<number, PrOutlook> }> {
    const { db } = this.deps;
    const { queue } = await queueOfOrg(db, ctx, key);
    if (!Number.isInteger(query.take) || query.take < 1 || query.take > 100) {
      throw new HttpError('VALIDATION_FAILED', 'take must be an integer from 1 to 100');
    }
    if (query.state !== undefined && !Object.values(PrState).includes(query.state)) {
      throw new HttpError('VALIDATION_FAILED', `state must be one of ${Object.values(PrState).join(', ')}`);
    }
    // The cursor is the id of the last entry of the previous page: opaque to clients, a UUID on the wire.
    let after: { submittedAt: number; prNumber: number } | undefined;
    if (query.cursor !== undefined) {
      const last = await findEntryById(db, queue.id, query.cursor);
      if (!last)
        throw new HttpError(
          'VALIDATION_FAILED',
          'cursor is not a nextCursor returned by listPullRequests for this queue',
        );
      after = { submittedAt: last.submittedAt, prNumber: last.prNumber };
    }
    const rows = await listEntriesPage(db, {
      queueId: queue.id,
      limit: query.take + 1,
      after,
      ...(query.state !== undefined ? { state: query.state } : {}),
      ...(query.since !== undefined || query.until !== undefined
        ? { concluded: { since: query.since, until: query.until, terminal: TERMINAL_STATES } }
        : {}),
    });
    const items = rows.slice(0, query.take);
    const outlook = items.some((e) => !isTerminal(e.state)) ? await this.outlook(queue.id) : new Map();
    return rows.length > query.take ? { items, nextCursor: items[items.length - 1]!.id, outlook } : { items, outlook };
  }

  async setImpactedTargets(
    ctx: AuthContext,
    key: QueueKey,
    req: { prNumber: number; sha: string; targets: ImpactedTargets },
  ): Promise<void> {
    checkTargetsUpload(req);
    await this.storeTargets(await repoOfOrg(this.deps.db, ctx, key.repo), req);
  }

  async setImpactedTargetsFromFork(
    runId: string,
    key: QueueKey,
    req: { prNumber: number; sha: string; targets: ImpactedTargets },
  ): Promise<void> {
    checkTargetsUpload(req);
    const repo = await findRepo(this.deps.db, key.repo.host, key.repo.owner, key.repo.name);
    if (!repo) throw new HttpError('FORK_RUN_NOT_VERIFIED', `no repository ${repoSlug(key.repo)} is connected`);
    const binding = bindingOf(repo);
    const forge = forgeFor(this.deps.adapters, binding);
    if (!forge.verifyForkRun) throw new HttpError('FORK_UPLOAD_UNSUPPORTED');
    const verdict = await forge.verifyForkRun(binding, runId, req.sha);
    if (!verdict.ok) throw new HttpError('FORK_RUN_NOT_VERIFIED', verdict.reason);
    await this.storeTargets(repo, req);
  }

  private async storeTargets(
    repo: RepoRow,
    req: { prNumber: number; sha: string; targets: ImpactedTargets },
  ): Promise<void> {
    const { db, executor, clock } = this.deps;
    const at = clock.now();
    await upsertImpactedTargets(db, repo.id, req.prNumber, req.sha, req.targets, at);
    for (const { queueId } of await listActiveEntriesAtSha(db, repo.id, req.prNumber, req.sha, TERMINAL_STATES)) {
      await executor.apply(queueId, {
        kind: 'impactedTargets',
        at,
        prNumber: req.prNumber,
        headSha: req.sha,
        targets: req.targets,
      });
    }
  }

  // ------------------------------------------------------------------ test runs (§2.7 + extensions)

  getTestingDetails(ctx: AuthContext, key: QueueKey, testRunId: string): Promise<TestRunView> {
    return testingDetails(this.deps.db, ctx, key, testRunId);
  }

  reportStatus(
    ctx: AuthContext,
    req: { repo: RepoRef; testRunId?: string; sha?: string; status: CiStatus },
  ): Promise<void> {
    return reportStatus(this.deps, ctx, req);
  }

  async getTestRunLog(ctx: AuthContext, key: QueueKey, testRunId: string): Promise<string | null> {
    await runOfQueue(this.deps.db, ctx, key, testRunId);
    return (await this.deps.adapters.ci.getLog?.(testRunId)) ?? null;
  }

  async metrics(ctx: AuthContext, filter: { repo?: RepoRef }): Promise<string> {
    const repoIds = filter.repo ? [(await repoOfOrg(this.deps.db, ctx, filter.repo)).id] : undefined;
    return renderMetrics(this.deps.db, { orgId: ctx.orgId, repoIds, now: this.deps.clock.now() });
  }

  // ------------------------------------------------------------------ dashboard (extensions)

  listQueues(ctx: AuthContext): Promise<QueueSummary[]> {
    return listQueueSummaries(this.deps.db, ctx, this.deps.clock.now());
  }

  getQueueActivity(ctx: AuthContext, key: QueueKey): Promise<QueueActivity> {
    return queueActivity(this.deps.db, this.deps.executor, ctx, key, this.deps.clock.now());
  }

  getQueueHistory(ctx: AuthContext, key: QueueKey, hours: number): Promise<QueueHistory> {
    return queueHistory(this.deps.db, ctx, key, hours, this.deps.clock.now());
  }

  listConcludedPullRequests(ctx: AuthContext, key: QueueKey, query: ConcludedQuery): Promise<ConcludedPage> {
    return listConcluded(this.deps.db, ctx, key, query);
  }

  async watchQueue(ctx: AuthContext, key: QueueKey, onChange: () => void): Promise<() => void> {
    const { queue } = await queueOfOrg(this.deps.db, ctx, key);
    return this.deps.executor.watch(queue.id, onChange);
  }

  // ------------------------------------------------------------------ helpers

  private async view(queueId: string, version?: number): Promise<QueueView> {
    const snapshot = await this.deps.executor.read(queueId, version);
    return {
      snapshot,
      at: this.deps.clock.now(),
      enqueued: queueOrder(snapshot).filter((e) => e.state !== PrState.NOT_READY),
      outlook: await outlookOf(this.deps.db, queueId, snapshot, this.deps.clock.now()),
    };
  }

  /** The outlook of the queue's entries as they are now. */
  private async outlook(queueId: string): Promise<ReadonlyMap<number, PrOutlook>> {
    return outlookOf(this.deps.db, queueId, await this.deps.executor.read(queueId), this.deps.clock.now());
  }
}

function checkTargetsUpload(req: { prNumber: number; sha: string; targets: ImpactedTargets }): void {
  assertPrNumber(req.prNumber);
  if (!req.sha)
    throw new HttpError('VALIDATION_FAILED', 'pr.sha must be the head commit sha the targets were computed for');
  if (req.targets !== 'ALL' && !(Array.isArray(req.targets) && req.targets.every((t) => typeof t === 'string'))) {
    throw new HttpError('VALIDATION_FAILED', 'impactedTargets must be a list of strings or "ALL"');
  }
}
