/**
 * The forge port: what the service asks of a forge (GitHub, Gitea, plain git …). Each forge adapter is
 * a folder beside this file (src/forge/<name>/); the in-memory forge of the tests and the simulator's
 * forge implement it too. The CI port is src/ci/port.ts.
 */
import type {
  FailureReason,
  MergeMethod,
  PrInfo,
  QueueConfig,
  QueueEventPayload,
  RepoRef,
  RunPr,
} from '../engine/types.js';
import type { PrOutlook } from '../engine/eta.js';
import type { CommitMessageSettings } from '../engine/commit-message.js';

/**
 * The names of the forges: each forge's definition adds its own (a declaration merge in
 * src/forge/<name>/definition.ts), and the list of forges (src/forges.ts) fails to compile without it.
 */
// biome-ignore lint/suspicious/noEmptyInterface: each forge's definition merges its name in
export interface ForgeNames {}
export type ForgeName = keyof ForgeNames;

/** How a repository is bound to its forge and CI (from `greenline repo connect`). */
export interface RepoBinding {
  id: string;
  org: string;
  repo: RepoRef;
  forge: ForgeName;
  /** Git remote URL (git forge), or the web address of the Gitea or Forgejo server (gitea); null on github. */
  remote: string | null;
  /** Ref pattern of PR heads for the git forge, `{n}` replaced by the number. */
  prRefPattern: string;
  /** Built-in CI command, run on a checkout of each test commit. */
  ciCommand: string | null;
  /** Prefix of test branch names, e.g. `greenline-merge`. */
  testBranchPrefix: string;
  /**
   * What only the repository's own forge reads: the data it keeps about the binding (github: the GitHub
   * App installation, `{ installationId }`; absent = looked up); absent or null = none.
   */
  forgeData?: Readonly<Record<string, unknown>> | null;
}

/**
 * A forge adapter could not reach the forge (remote missing, wrong URL, network, credentials). Not
 * the caller's fault: the API answers 502 FORGE_UNREACHABLE with this message.
 */
export class ForgeUnreachableError extends Error {
  override name = 'ForgeUnreachableError';
}

/**
 * The forge's request budget is spent until `retryAt` (ms since the epoch): what needs the forge waits
 * until then (an effect is retried at that time, its attempt not counted) instead of failing.
 */
export class ForgeRateLimitedError extends ForgeUnreachableError {
  override name = 'ForgeRateLimitedError';
  constructor(
    message: string,
    readonly retryAt: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/**
 * A test commit built, or why not. `steps`: the commit after each PR of the request was merged, in
 * order (the last is `sha`); forges that cannot tell leave it out.
 */
export type BuildResult =
  | { ok: true; sha: string; steps?: string[] }
  | { ok: false; reason: FailureReason; detail: string };

export type AdvanceResult =
  /** `note`: how the forge had to merge, when it cost more than the method promises, and what would spare it. */
  | { ok: true; newSha: string; note?: string }
  | {
      ok: false;
      reason: 'TARGET_MOVED' | 'PR_UPDATED_AT_MERGE_TIME' | 'MERGE_REFUSED';
      detail: string;
      mergedPrNumbers?: number[];
      newSha?: string;
    };

/** A PR as its forge's server describes it (ForgePort.advanceTarget's `described`). */
export interface DescribedPr {
  title: string;
  /** The PR's description. */
  body: string;
  author: string;
  headBranch?: string;
}

/** A repository as its forge describes it (ForgePort.describeRepository). */
export interface ForgeRepository {
  owner: string;
  name: string;
  defaultBranch: string;
}

/**
 * What the service asks of a forge. Every forge that talks to its server must, on every request:
 *
 * - give up at a deadline (the server setting forgeRequestTimeoutSeconds, 30 s by default): a request
 *   without an answer by then fails with ForgeUnreachableError saying which forge and request did not
 *   answer within how long, so that a forge that never answers holds its queue's effects for no
 *   longer (forge-http.ts's `withDeadline` does this for HTTP);
 * - turn the forge's rate limit (a 429, a 403 with `Retry-After`, the forge's own signs such as
 *   GitHub's spent request budget) into ForgeRateLimitedError with the time to ask again
 *   (forge-http.ts's `rateLimitedUntil` reads `Retry-After`): the effect then waits until that
 *   time without counting a failed attempt, instead of failing.
 */
export interface ForgePort {
  /**
   * Current state of a PR, or null when the forge has no such PR. `targetBranch` is the queue's branch:
   * forges without PR metadata (plain git) report it as the PR's base and compute mergeability against it.
   */
  getPullRequest(repo: RepoBinding, number: number, targetBranch?: string): Promise<PrInfo | null>;
  /**
   * Whether a PR that `getPullRequest` no longer reports open was merged (by someone other than
   * greenline, when it is still queued) rather than closed. Forges that cannot tell leave it out.
   */
  wasMerged?(repo: RepoBinding, number: number): Promise<boolean>;
  /**
   * Told that refs of the repository moved (a push notification): the next read must look at the
   * remote again rather than answer from what the forge read recently. Forges that read afresh every
   * time leave it out.
   */
  refsMoved?(repo: RepoBinding): void;
  /**
   * What direct merge needs to know of a PR (contract §6.9, `directMergeMode = always`): `baseSha`,
   * the tip of its base branch when its head is built on that tip (absent otherwise), and whether
   * the checks its base branch requires passed on its head. Asked only when the setting is on.
   * Forges that cannot tell leave it out: their PRs are always tested.
   */
  directMergeFacts?(
    repo: RepoBinding,
    pr: { headSha: string; baseBranch: string },
  ): Promise<{ baseSha?: string; checksPassed: boolean }>;
  /** Current sha of a branch, or null when it does not exist. */
  getBranchSha(repo: RepoBinding, branch: string): Promise<string | null>;
  /**
   * Build the test commit: baseSha with every PR head of `prs` merged in order, and publish it as
   * `branch`. Idempotent: an existing branch with the same content is success. Forges whose CI may
   * report on the commit as soon as it is published tell its sha to `onBuilt` first (and wait for it).
   */
  createTestBranch(
    repo: RepoBinding,
    req: { branch: string; baseSha: string; prs: RunPr[]; onBuilt?: (sha: string) => Promise<void> },
  ): Promise<BuildResult>;
  /**
   * The paths changed on `to` since its merge base with `from` (what `git diff from...to` lists; a
   * renamed file is its old and its new path), sorted; null when the forge cannot list them all (a
   * comparison beyond its limits). Forges that cannot compare commits leave it out.
   */
  changedFiles?(repo: RepoBinding, commits: { from: string; to: string }): Promise<string[] | null>;
  /** Delete a branch; deleting a branch that does not exist is success. */
  deleteBranch(repo: RepoBinding, branch: string): Promise<void>;
  /**
   * Asks the forge's CI to run the checks of a test commit again (`ciRetries`, or after a
   * cancellation): the statuses it then reports decide the run. Forges without CI of their own leave
   * it out (the built-in CI, or external CI told by the `test_run.retry_requested` webhook, runs again).
   * A check whose CI run is still running (GitHub: its workflow run) cannot be run again yet: that
   * run's id is in `waiting`, and the caller asks again for `only` those once the forge reports the
   * commit's checks completed.
   */
  rerunChecks?(
    repo: RepoBinding,
    commit: { sha: string; branch: string; only?: string[] },
  ): Promise<{ waiting: string[] }>;
  /**
   * Names of the branches the forge holds now whose names start with `prefix` (the repository's test
   * branches), read from the forge itself, not from a cache. What lets an instance that takes queues
   * over delete the test branches a dead one left behind (app/executor/test-branch-reconcile.ts). Forges that
   * cannot list branches leave it out: their leftover test branches are not reconciled.
   */
  listBranches?(repo: RepoBinding, prefix: string): Promise<string[]>;
  /**
   * The repository as the forge knows it, read from the forge: its owner and name in the forge's own
   * (canonical) spelling, which may differ in letter case from the binding's, and its default branch;
   * null when the forge has no such repository or does not let greenline see it. What `repo connect`
   * stores. Forges that cannot tell leave it out: the name is stored as given.
   */
  describeRepository?(repo: RepoBinding): Promise<ForgeRepository | null>;
  /**
   * Advance `targetBranch` from exactly `expectedSha` to the tested state `testSha` (merging `prs` with
   * `method`), with compare-and-swap: never a blind force-push.
   */
  advanceTarget(
    repo: RepoBinding,
    req: {
      targetBranch: string;
      expectedSha: string;
      testSha: string;
      prs: RunPr[];
      method: 'merge_commit' | 'squash' | 'rebase' | MergeMethod;
      /**
       * The queue's commit message templates (engine/commit-message.ts), for the merge and squash
       * commits the forge writes or asks for; absent or null = the forge's own messages.
       */
      messages?: CommitMessageSettings | null;
      /**
       * What the forge's server knows of each PR, by number, for those messages: a forge that hands
       * its merge to the git forge tells it (the git forge alone reads them from the PR's head commit).
       */
      described?: ReadonlyMap<number, DescribedPr>;
      /** The PRs' own messages given with their submission (`--message`), by number. */
      ownMessages?: ReadonlyMap<number, string>;
    },
  ): Promise<AdvanceResult>;
  /**
   * The checks the forge itself requires on `branch` (branch protection, rulesets), used when neither
   * the queue nor the repository names any. Forges without such settings leave it out.
   */
  requiredStatuses?(repo: RepoBinding, branch: string): Promise<string[]>;
  /**
   * Every check the forge holds for a commit, as statuses: what a forge that reports checks by
   * webhook is asked when a commit's checks completed, in case a delivery was missed. Forges that
   * report no checks leave it out.
   */
  checkStatuses?(repo: RepoBinding, sha: string): Promise<CiStatus[]>;
  /**
   * Whether CI results of the repository must be read by polling: true when the forge may never tell
   * of a status (it sends no status event, as Forgejo; or it does not deliver a webhook again after
   * greenline missed it, as Gitea). Then, at every poll of a queue, the poller (app/observing/forge-poller.ts)
   * asks `checkStatuses` once for the test commit of each run in flight, records the statuses CI
   * reported in the run's current attempt (those whose `at` is not before the attempt began: after a
   * retry on the same commit, the earlier attempt's are left out), and keeps such a queue at the poll
   * interval while a run is in flight; the first poll after a start or a takeover so reads every run
   * under test at once. Cost: one `checkStatuses` per run in flight per poll, so the forge should
   * answer it with one request (a page of statuses). Forges whose check reports arrive reliably
   * (GitHub: webhooks delivered again; the built-in CI) leave it out: their runs are read again only
   * when they heard nothing for a while.
   */
  pollsChecks?(repo: RepoBinding): boolean;
  /**
   * Whether the author of a PR comment may command the queue (their permission on the repository, as
   * the forge tells it; `standing` is how the forge's delivery described the author, when it did);
   * when not, why, in words. Forges that cannot tell leave it out: every command is accepted.
   */
  mayCommand?(
    repo: RepoBinding,
    author: { login?: string; standing?: string },
  ): Promise<{ ok: true } | { ok: false; reason: string }>;
  /**
   * Posts a comment on a PR (the answer to a queue command given in a comment that could not be
   * carried out). Forges without PR comments leave it out.
   */
  reply?(repo: RepoBinding, number: number, body: string): Promise<void>;
  /**
   * Tells the forge about a queue event (status checks, comments, draft PRs of test branches).
   * Best effort: it never throws; what fails is logged.
   */
  onQueueEvent?(
    repo: RepoBinding,
    queue: {
      targetBranch: string;
      config: QueueConfig;
      /** Where each PR of the queue stands now, for the PRs the event is about (engine/eta.ts). */
      outlook?: ReadonlyMap<number, PrOutlook>;
      /** Why each PR the event is about is where it is, in words (engine/pr-reason.ts). */
      reasons?: ReadonlyMap<number, { message: string; detail?: string }>;
    },
    event: QueueEventPayload,
  ): Promise<void>;
  /**
   * Whether a run of the forge's CI vouches for an impacted-target upload from a fork PR (contract §2.6,
   * §9): the run exists, is still running, was started for a pull request from a fork, on `headSha`
   * (GitHub: a workflow run). Forges without CI runs of their own leave it out (such uploads need a token).
   */
  verifyForkCiRun?(
    repo: RepoBinding,
    runId: string,
    headSha: string,
  ): Promise<{ ok: true } | { ok: false; reason: string }>;
}

/**
 * The states of a CI status. `cancelled`: CI stopped the check (not greenline); the run is tested
 * again rather than failed (engine ci-retries.ts). `skipped`: CI concluded the check without running
 * it (a GitHub check run concluded `skipped` or `neutral`); it passes beside checks that ran, but a
 * run whose required statuses were all skipped was not tested (ci-outcome.ts).
 */
export const CI_STATES = ['pending', 'success', 'failure', 'error', 'cancelled', 'skipped'] as const;

export interface CiStatus {
  context: string;
  state: (typeof CI_STATES)[number];
  url?: string;
  description?: string;
  /**
   * When the forge recorded this state (ms since the epoch), where it tells: what tells a status of
   * the current attempt from one CI reported before the run was tested again on the same commit.
   */
  at?: number;
}
