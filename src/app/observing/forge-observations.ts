/**
 * What forge observations (src/forge/observations.ts: webhook deliveries translated by their
 * adapter, the forge poller's reads) do to the repository's queues:
 *
 *   prTouched             → the PR read again from the forge → prSeen
 *   prSeen, prClosed      → prObserved / prMergedOutside / prClosed (pr-observation.ts), in every
 *                           queue that holds the PR
 *   prConvertedToDraft    → prConvertedToDraft, in every queue that holds the PR
 *   prLabel               → submit / cancel, for the enqueueingLabel of the PR's base branch's queue
 *                           when labelCommandsEnabled and whoever set the label may command it
 *   prLabels              → the same, the enqueueingLabel being added when the PR is not queued and
 *                           has it, removed when the queued PR had it and has it no more
 *   prComment             → submit / cancel / try when the queue of the PR's base branch has
 *                           commandsEnabled and the author may command it
 *   (prTouched, prSeen and prClosed also read again the PR of an open try build, which a push cancels.)
 *   (Who may command: the forge's mayCommand, e.g. write access on GitHub; a refusal is answered on
 *   the PR with the reason.)
 *   branchPushed          → the queue of that target branch reads its head (target-refresh.ts)
 *   ciStatus              → CI status of the test run of that commit (ci-outcome decides); held
 *                           for the run that gets that commit when none has it yet
 *   checksCompleted       → every check of that test commit, in case one was missed; or, when a retry
 *                           of its run waits for its workflows to complete, their failed jobs re-run
 *   checksBlocked         → the test run of that commit fails (or is retried per ciRetries), saying why
 * `observePr` is the one path by which what the forge tells of a PR reaches the engine.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { isTerminal, type EngineEvent, type Entry, type PriorityName } from '../../engine/types.js';
import { ServiceError } from '../../lib/errors.js';
import type { ForgeObservation, QueueCommand } from '../../forge/observations.js';
import type { CiStatus } from '../../forge/port.js';
import type { Database, QueueRow, RepoRow } from '../../store/database.js';
import { findEntry } from '../../store/entries.js';
import { findRunRowByTestSha } from '../../store/test-runs.js';
import { forgeFor, type Adapters } from '../adapters.js';
import type { CiOutcome } from '../executor/ci-outcome.js';
import type { Clock } from '../../lib/clock.js';
import { observedPrEvent } from './pr-observation.js';
import type { QueueExecutor } from '../executor/queue-executor.js';
import { bindingOf } from '../repo-binding.js';
import { EVERY_SCOPE } from '../scopes.js';
import { queueConfigOf } from '../executor/snapshot-io.js';
import { refreshTarget } from './target-refresh.js';
import { resumeRerun } from '../executor/check-reruns.js';
import type { AuthContext, PullRequestService, TryService } from '../service-port.js';
import type { TryBuilds } from '../try-builds.js';

/** Observations of a PR that go to the engine as they are. */
export type PrObservation = Extract<ForgeObservation, { kind: 'prSeen' | 'prClosed' | 'prConvertedToDraft' }>;

/** Tells the queue's engine what the forge saw of a PR that the queue holds (nothing when it holds none). */
export async function observePr(
  deps: { executor: QueueExecutor; clock: Clock; logger?: Logger | undefined },
  queueId: string,
  o: PrObservation,
): Promise<void> {
  const r = await deps.executor.apply(queueId, (s) => {
    const e = s.entries.find((x) => x.prNumber === o.prNumber && !isTerminal(x.state));
    return e ? eventOf(e, o, deps.clock.now()) : null;
  });
  if (!r.ok) deps.logger?.debug({ queue: queueId, rejection: r.rejection }, 'forge observation not applied');
}

function eventOf(e: Entry, o: PrObservation, at: number): EngineEvent | null {
  switch (o.kind) {
    case 'prSeen':
      return observedPrEvent(e, o.pr, o.merged, at);
    case 'prClosed':
      return observedPrEvent(e, null, o.merged, at);
    case 'prConvertedToDraft':
      return { kind: 'prConvertedToDraft', at, prNumber: o.prNumber };
  }
}

export interface ForgeObservationsDeps {
  db: Kysely<Database>;
  executor: QueueExecutor;
  /** Submits, cancels and tries PRs asked for by a PR comment or label. */
  service: PullRequestService & TryService;
  /** Try builds, whose PRs are read again when they change; absent or null: none. */
  tries?: TryBuilds | null;
  ciOutcome: CiOutcome;
  adapters: Adapters;
  clock: Clock;
  logger?: Logger;
}

export class ForgeObservations {
  constructor(private readonly deps: ForgeObservationsDeps) {}

  /** Applies one observation of `repo` (whose queues are `queues`); false when it concerned none of them. */
  async apply(repo: RepoRow, queues: QueueRow[], o: ForgeObservation): Promise<boolean> {
    if (o.kind === 'prTouched' || o.kind === 'prSeen' || o.kind === 'prClosed')
      await this.deps.tries?.prsMoved(repo.id, [o.prNumber]);
    switch (o.kind) {
      case 'prTouched': {
        const holding = await this.queuesHolding(queues, o.prNumber);
        if (holding.length === 0) return false;
        const binding = bindingOf(repo);
        const forge = forgeFor(this.deps.adapters, binding);
        const pr = await forge.getPullRequest(binding, o.prNumber);
        const merged = !pr && (await forge.wasMerged?.(binding, o.prNumber)) === true;
        for (const q of holding) await observePr(this.deps, q.id, { kind: 'prSeen', prNumber: o.prNumber, pr, merged });
        return true;
      }
      case 'prSeen':
      case 'prClosed':
      case 'prConvertedToDraft': {
        const holding = await this.queuesHolding(queues, o.prNumber);
        for (const q of holding) await observePr(this.deps, q.id, o);
        return holding.length > 0;
      }
      case 'prLabel': {
        const queue = queues.find((q) => q.target_branch === o.baseBranch);
        if (!queue) return false;
        const config = queueConfigOf(queue);
        if (!config.labelCommandsEnabled || o.label !== config.enqueueingLabel) return false;
        return this.onLabel(repo, queue, o);
      }
      case 'prLabels': {
        const queue = queues.find((q) => q.target_branch === o.baseBranch);
        if (!queue) return false;
        const config = queueConfigOf(queue);
        const label = config.enqueueingLabel;
        if (!config.labelCommandsEnabled || !label) return false;
        const entry = await findEntry(this.deps.db, queue.id, o.prNumber);
        const queued = entry !== undefined && !isTerminal(entry.state);
        const has = o.labels.includes(label);
        if (has === queued || (!has && !entry?.labels?.includes(label))) return false;
        const { prNumber, baseBranch, sender } = o;
        return this.onLabel(repo, queue, {
          kind: 'prLabel',
          prNumber,
          baseBranch,
          label,
          added: has,
          ...(sender ? { sender } : {}),
        });
      }
      case 'prComment':
        return this.onComment(repo, queues, o);
      case 'branchPushed': {
        const queue = queues.find((q) => q.target_branch === o.branch);
        if (!queue) return false;
        await refreshTarget(this.deps, queue, repo);
        return true;
      }
      case 'ciStatus':
        return this.recordStatuses(repo, o.sha, [o.status]);
      case 'checksCompleted': {
        const binding = bindingOf(repo);
        const forge = forgeFor(this.deps.adapters, binding);
        // A retry waiting for the commit's workflows to complete re-runs their failed jobs now; their
        // checks are then the new attempt's, still to come.
        const run = await findRunRowByTestSha(this.deps.db, repo.id, o.sha);
        if (run && (await resumeRerun(this.deps, binding, run.id))) return true;
        return this.recordStatuses(repo, o.sha, async () => (await forge.checkStatuses?.(binding, o.sha)) ?? []);
      }
      case 'checksBlocked': {
        const run = await findRunRowByTestSha(this.deps.db, repo.id, o.sha);
        if (!run) return false;
        await this.deps.ciOutcome.fail(run.id, o.detail);
        return true;
      }
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

  /**
   * Records the statuses for the run whose test commit `sha` is; those of a commit no run has (yet) are
   * held for the run that gets it (ci-outcome.ts). Statuses read from the forge are read for test commits only.
   */
  private async recordStatuses(
    repo: RepoRow,
    sha: string,
    statuses: CiStatus[] | (() => Promise<CiStatus[]>),
  ): Promise<boolean> {
    if (typeof statuses === 'function') {
      if (!(await findRunRowByTestSha(this.deps.db, repo.id, sha))) return false;
      statuses = await statuses();
    }
    return this.deps.ciOutcome.recordForCommit(repo.id, sha, statuses);
  }

  private async onComment(
    repo: RepoRow,
    queues: QueueRow[],
    o: Extract<ForgeObservation, { kind: 'prComment' }>,
  ): Promise<boolean> {
    const binding = bindingOf(repo);
    const forge = forgeFor(this.deps.adapters, binding);
    const base = (await forge.getPullRequest(binding, o.prNumber))?.baseBranch;
    const queue = queues.find((q) => q.target_branch === base);
    if (!queue || !queueConfigOf(queue).commandsEnabled) return false;
    const author = {
      ...(o.author ? { login: o.author } : {}),
      ...(o.authorStanding ? { standing: o.authorStanding } : {}),
    };
    if (!(await this.allowed(repo, o.prNumber, author, 'the command'))) return true;
    const refused = await this.run(repo, queue, o.prNumber, o.command, o.author);
    if (refused)
      await forge.reply?.(
        binding,
        o.prNumber,
        `${o.author ? `@${o.author} ` : ''}greenline could not do that: ${refused}`,
      );
    return true;
  }

  /** The enqueueing label added (merge) or removed (cancel), when whoever did it may command the queue. */
  private async onLabel(
    repo: RepoRow,
    queue: QueueRow,
    o: Extract<ForgeObservation, { kind: 'prLabel' }>,
  ): Promise<boolean> {
    const who = o.sender ? { login: o.sender } : {};
    if (!(await this.allowed(repo, o.prNumber, who, `the ${o.added ? '' : 'removed '}label "${o.label}"`))) return true;
    await this.run(repo, queue, o.prNumber, o.added ? { kind: 'merge', noBatch: false } : { kind: 'cancel' }, o.sender);
    return true;
  }

  /**
   * Whether `author` may command the queue (the forge's mayCommand; forges that cannot tell accept
   * everyone). A refusal is logged and answered on the PR with the reason; `what` names what was ignored.
   */
  private async allowed(
    repo: RepoRow,
    prNumber: number,
    author: { login?: string; standing?: string },
    what: string,
  ): Promise<boolean> {
    const binding = bindingOf(repo);
    const forge = forgeFor(this.deps.adapters, binding);
    const allowed = (await forge.mayCommand?.(binding, author)) ?? { ok: true };
    if (allowed.ok) return true;
    this.deps.logger?.info({ pr: prNumber, author: author.login, reason: allowed.reason }, 'forge command not allowed');
    await forge.reply?.(
      binding,
      prNumber,
      `${author.login ? `@${author.login}: ` : ''}greenline ignored ${what}: ${allowed.reason}`,
    );
    return false;
  }

  /** Runs a queue command for the PR, given by forge user `user` when known; what the service refused, in words (null: done). */
  private async run(
    repo: RepoRow,
    queue: QueueRow,
    prNumber: number,
    command: QueueCommand,
    user: string | undefined,
  ): Promise<string | null> {
    if (command.kind === 'invalid') return command.message;
    const key = { repo: { host: repo.host, owner: repo.owner, name: repo.name }, targetBranch: queue.target_branch };
    const { service } = this.deps;
    const ctx = ctxOf(repo, user);
    if (command.kind === 'cancel')
      return this.quietly(() => service.cancelPullRequest(ctx, key, prNumber, 'USER_REQUESTED'), prNumber);
    if (command.kind === 'try')
      return this.quietly(() => service.tryPullRequest(ctx, key, { prNumber, onQueue: command.onQueue }), prNumber);
    return this.quietly(
      () =>
        service.submitPullRequest(ctx, key, {
          prNumber,
          reason: 'USER_REQUESTED',
          ...(command.priority !== undefined ? { priority: priorityOf(command.priority) } : {}),
          ...(command.noBatch ? { noBatch: true } : {}),
          ...(command.message !== undefined ? { commitMessage: command.message } : {}),
        }),
      prNumber,
    );
  }

  /** A refusal of the service (e.g. cancel of a PR that is not queued) is the user's, not a failed delivery. */
  private async quietly(call: () => Promise<unknown>, pr: number): Promise<string | null> {
    try {
      await call();
      return null;
    } catch (err) {
      if (!(err instanceof ServiceError)) throw err;
      this.deps.logger?.info({ pr, code: err.code, message: err.message }, 'forge request refused');
      return err.message;
    }
  }
}

/** A number stays a number; a name is checked by the service (which answers what is accepted). */
const priorityOf = (p: string): number | PriorityName => (/^\d+$/.test(p) ? Number(p) : (p as PriorityName));

/** Commands seen on the forge act for the repository's organization, with every scope, in the name of the forge user who gave them. */
const ctxOf = (repo: RepoRow, user: string | undefined): AuthContext => ({
  orgId: repo.org_id,
  orgName: '',
  tokenId: `${repo.forge}-webhook`,
  scopes: EVERY_SCOPE,
  ...(user !== undefined ? { forgeUser: user } : {}),
});
