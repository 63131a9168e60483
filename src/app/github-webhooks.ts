/**
 * GitHub webhook deliveries (already verified by the HTTP layer) into engine events and service calls.
 * Each delivery id is processed once (github_deliveries, kept 14 days: app/retention.ts); a delivery
 * whose processing failed is forgotten again so that GitHub's redelivery gets another chance.
 *
 *   pull_request synchronize, edited, ready_for_review, reopened → PR read again → prObserved / prClosed
 *   pull_request closed                  → prMergedOutside (merged) or prClosed
 *   pull_request converted_to_draft      → prConvertedToDraft
 *   pull_request labeled / unlabeled     → submit / cancel, for the queue's enqueueingLabel
 *   push to a queue's target branch      → target read again → targetMoved (as the poller does)
 *   check_run, status on a test commit   → CI status of the run (ci-outcome decides)
 *   check_suite completed on a test commit → every check run of the commit, in case one was missed
 *   issue_comment created on a PR        → `/greenline merge|cancel` (or `/trunk …`) when commandsEnabled
 * Deliveries for repositories not connected with `--forge github` are ignored.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { parseQueueCommand } from '../adapters/forge/github/commands.js';
import { checkRunState, type GitHubForge } from '../adapters/forge/github/github-forge.js';
import { isTerminal, type EngineEvent, type PrInfo, type PriorityName } from '../engine/types.js';
import { HttpError } from '../errors.js';
import type { CiStatus } from '../ports.js';
import type { Database, QueueRow, RepoRow } from '../store/database.js';
import { findEntry } from '../store/entries.js';
import { claimDelivery, releaseDelivery } from '../store/github-deliveries.js';
import { listQueuesOfRepos } from '../store/queues.js';
import { findRepo } from '../store/repos.js';
import { findRunRowByTestSha } from '../store/test-runs.js';
import type { Adapters } from './adapters.js';
import type { CiOutcome } from './ci-outcome.js';
import type { Clock } from '../lib/clock.js';
import type { QueueExecutor } from './queue-executor.js';
import { observedPrEvent } from './pr-observation.js';
import { bindingOf } from './repo-binding.js';
import { queueConfigOf } from './snapshot-io.js';
import { refreshTarget } from './target-refresh.js';
import type { AuthContext, MergeQueueService } from './types.js';

export interface GitHubDelivery {
  /** X-GitHub-Delivery. */
  id: string;
  /** X-GitHub-Event. */
  event: string;
  payload: unknown;
}

export type DeliveryResult = 'processed' | 'duplicate' | 'ignored';

export interface GitHubWebhooksDeps {
  db: Kysely<Database>;
  executor: QueueExecutor;
  service: MergeQueueService;
  ciOutcome: CiOutcome;
  adapters: Adapters;
  forge: GitHubForge;
  clock: Clock;
  logger?: Logger;
}

/* The parts of GitHub's payloads read here. */
interface RepoPayload { repository?: { name?: string; html_url?: string; owner?: { login?: string } } }
interface PullPayload { number: number; merged?: boolean; base: { ref: string }; head: { sha: string } }
interface Payload extends RepoPayload {
  action?: string;
  pull_request?: PullPayload;
  label?: { name?: string };
  changes?: { base?: unknown; title?: unknown };
  ref?: string;
  deleted?: boolean;
  check_run?: { head_sha: string; name: string; status: string; conclusion: string | null; html_url?: string | null; details_url?: string | null };
  check_suite?: { head_sha: string };
  sha?: string;
  context?: string;
  state?: string;
  target_url?: string | null;
  description?: string | null;
  issue?: { number: number; pull_request?: unknown };
  comment?: { body?: string; user?: { login?: string; type?: string } };
  sender?: { login?: string; type?: string };
}

export class GitHubWebhooks {
  constructor(private readonly deps: GitHubWebhooksDeps) {}

  /** Processes a delivery once; a repeated delivery id is 'duplicate' and changes nothing. */
  readonly receive = async (delivery: GitHubDelivery): Promise<DeliveryResult> => {
    const { db, clock } = this.deps;
    if (!(await claimDelivery(db, delivery.id, delivery.event, clock.now()))) return 'duplicate';
    try {
      return await this.handle(delivery.event, (delivery.payload ?? {}) as Payload);
    } catch (err) {
      await releaseDelivery(db, delivery.id).catch(() => undefined);
      throw err;
    }
  };

  private async repoOf(p: Payload): Promise<RepoRow | null> {
    const r = p.repository;
    if (!r?.name || !r.owner?.login || !r.html_url) return null;
    let host: string;
    try {
      host = new URL(r.html_url).host;
    } catch {
      return null;
    }
    const row = await findRepo(this.deps.db, host, r.owner.login, r.name);
    return row?.forge === 'github' ? row : null;
  }

  private async handle(event: string, p: Payload): Promise<DeliveryResult> {
    const repo = await this.repoOf(p);
    if (!repo) return 'ignored';
    const queues = await listQueuesOfRepos(this.deps.db, [repo.id]);
    switch (event) {
      case 'pull_request': return this.onPullRequest(repo, queues, p);
      case 'push': return this.onPush(repo, queues, p);
      case 'check_run': {
        const c = p.check_run;
        if (!c) return 'ignored';
        const url = c.details_url ?? c.html_url;
        return this.onStatus(repo, c.head_sha, { context: c.name, state: checkRunState(c.status, c.conclusion), ...(url ? { url } : {}) });
      }
      case 'check_suite': return this.onCheckSuite(repo, p);
      case 'status': {
        if (!p.sha || !p.context || !isCiState(p.state)) return 'ignored';
        return this.onStatus(repo, p.sha, {
          context: p.context, state: p.state, ...(p.target_url ? { url: p.target_url } : {}), ...(p.description ? { description: p.description } : {}),
        });
      }
      case 'issue_comment': return this.onComment(repo, queues, p);
      default: return 'ignored';
    }
  }

  /** Queues of the repo in which the PR has a non-terminal entry. */
  private async queuesHolding(queues: QueueRow[], prNumber: number): Promise<QueueRow[]> {
    const out: QueueRow[] = [];
    for (const q of queues) {
      const e = await findEntry(this.deps.db, q.id, prNumber);
      if (e && !isTerminal(e.state)) out.push(q);
    }
    return out;
  }

  private async tell(queue: QueueRow, event: (at: number) => EngineEvent): Promise<void> {
    const r = await this.deps.executor.apply(queue.id, event(this.deps.clock.now()));
    if (!r.ok) this.deps.logger?.debug({ queue: queue.id, rejection: r.rejection }, 'webhook event not applied');
  }

  private async onPullRequest(repo: RepoRow, queues: QueueRow[], p: Payload): Promise<DeliveryResult> {
    const pr = p.pull_request;
    if (!pr) return 'ignored';
    const n = pr.number;
    switch (p.action) {
      case 'labeled':
      case 'unlabeled': return this.onLabel(repo, queues, p.action, pr, p.label?.name);
      case 'closed': {
        const holding = await this.queuesHolding(queues, n);
        for (const q of holding) await this.tell(q, (at) => (pr.merged ? { kind: 'prMergedOutside', at, prNumber: n } : { kind: 'prClosed', at, prNumber: n }));
        return holding.length > 0 ? 'processed' : 'ignored';
      }
      case 'converted_to_draft': {
        const holding = await this.queuesHolding(queues, n);
        for (const q of holding) await this.tell(q, (at) => ({ kind: 'prConvertedToDraft', at, prNumber: n }));
        return holding.length > 0 ? 'processed' : 'ignored';
      }
      case 'synchronize':
      case 'edited':
      case 'ready_for_review':
      case 'reopened': {
        const holding = await this.queuesHolding(queues, n);
        if (holding.length === 0) return 'ignored';
        // The payload may be older than GitHub's current view (mergeability is computed later): read it.
        const now = await this.deps.forge.getPullRequest(bindingOf(repo), n);
        const merged = !now && (await this.deps.forge.wasMerged(bindingOf(repo), n));
        for (const q of holding) await this.observe(q, n, now, merged);
        return 'processed';
      }
      default: return 'ignored';
    }
  }

  private async observe(queue: QueueRow, n: number, pr: PrInfo | null, merged: boolean): Promise<void> {
    const at = this.deps.clock.now();
    await this.deps.executor.apply(queue.id, (s) => {
      const e = s.entries.find((x) => x.prNumber === n && !isTerminal(x.state));
      return e ? observedPrEvent(e, pr, merged, at) : null;
    });
  }

  private async onLabel(
    repo: RepoRow, queues: QueueRow[], action: 'labeled' | 'unlabeled', pr: PullPayload, label: string | undefined,
  ): Promise<DeliveryResult> {
    const queue = queues.find((q) => q.target_branch === pr.base.ref);
    if (!queue || !label) return 'ignored';
    const config = queueConfigOf(queue);
    if (!config.labelCommandsEnabled || label !== config.enqueueingLabel) return 'ignored';
    const key = { repo: { host: repo.host, owner: repo.owner, name: repo.name }, targetBranch: queue.target_branch };
    if (action === 'labeled') {
      await this.quietly(() => this.deps.service.submitPullRequest(ctxOf(repo), key, { prNumber: pr.number, reason: 'USER_REQUESTED' }), pr.number);
    } else {
      await this.quietly(() => this.deps.service.cancelPullRequest(ctxOf(repo), key, pr.number, 'USER_REQUESTED'), pr.number);
    }
    return 'processed';
  }

  /** A refusal of the service (e.g. cancel of a PR that is not queued) is the user's, not a failed delivery. */
  private async quietly(call: () => Promise<void>, pr: number): Promise<string | null> {
    try {
      await call();
      return null;
    } catch (err) {
      if (!(err instanceof HttpError) || err.status >= 500) throw err;
      this.deps.logger?.info({ pr, code: err.code, message: err.message }, 'GitHub request refused');
      return err.message;
    }
  }

  private async onPush(repo: RepoRow, queues: QueueRow[], p: Payload): Promise<DeliveryResult> {
    if (!p.ref?.startsWith('refs/heads/') || p.deleted) return 'ignored';
    const branch = p.ref.slice('refs/heads/'.length);
    const queue = queues.find((q) => q.target_branch === branch);
    if (!queue) return 'ignored';
    await refreshTarget(this.deps, queue, repo);
    return 'processed';
  }

  private async onStatus(repo: RepoRow, sha: string, status: CiStatus): Promise<DeliveryResult> {
    const run = await findRunRowByTestSha(this.deps.db, repo.id, sha);
    if (!run) return 'ignored';
    await this.deps.ciOutcome.record({ runId: run.id, status });
    return 'processed';
  }

  private async onCheckSuite(repo: RepoRow, p: Payload): Promise<DeliveryResult> {
    if (p.action !== 'completed' || !p.check_suite) return 'ignored';
    const run = await findRunRowByTestSha(this.deps.db, repo.id, p.check_suite.head_sha);
    if (!run) return 'ignored';
    for (const status of await this.deps.forge.checkRunStatuses(bindingOf(repo), p.check_suite.head_sha)) {
      await this.deps.ciOutcome.record({ runId: run.id, status });
    }
    return 'processed';
  }

  private async onComment(repo: RepoRow, queues: QueueRow[], p: Payload): Promise<DeliveryResult> {
    if (p.action !== 'created' || !p.issue?.pull_request || !p.comment?.body) return 'ignored';
    if (p.comment.user?.type === 'Bot' || p.sender?.type === 'Bot') return 'ignored';
    const command = parseQueueCommand(p.comment.body);
    if (!command) return 'ignored';
    const n = p.issue.number;
    const binding = bindingOf(repo);
    const pr = await this.deps.forge.getPullRequest(binding, n);
    const base = pr?.baseBranch;
    const queue = queues.find((q) => q.target_branch === base);
    if (!queue || !queueConfigOf(queue).commandsEnabled) return 'ignored';
    const key = { repo: { host: repo.host, owner: repo.owner, name: repo.name }, targetBranch: queue.target_branch };
    let refused: string | null;
    if (command.kind === 'invalid') refused = command.message;
    else if (command.kind === 'cancel') refused = await this.quietly(() => this.deps.service.cancelPullRequest(ctxOf(repo), key, n, 'USER_REQUESTED'), n);
    else {
      refused = await this.quietly(() => this.deps.service.submitPullRequest(ctxOf(repo), key, {
        prNumber: n, reason: 'USER_REQUESTED', ...(command.priority !== undefined ? { priority: priorityOf(command.priority) } : {}),
        ...(command.noBatch ? { noBatch: true } : {}),
      }), n);
    }
    if (refused) {
      const who = p.comment.user?.login ? `@${p.comment.user.login} ` : '';
      await this.deps.forge.reply(binding, n, `${who}greenline could not do that: ${refused}`);
    }
    return 'processed';
  }
}

/** A number stays a number; a name is checked by the service (which answers what is accepted). */
const priorityOf = (p: string): number | PriorityName => (/^\d+$/.test(p) ? Number(p) : (p as PriorityName));

const isCiState = (s: unknown): s is CiStatus['state'] => s === 'pending' || s === 'success' || s === 'failure' || s === 'error';

/** Webhook-driven calls act for the repository's organization. */
const ctxOf = (repo: RepoRow): AuthContext => ({ orgId: repo.org_id, orgName: '', tokenId: 'github-webhook' });
