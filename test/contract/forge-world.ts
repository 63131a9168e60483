/**
 * A forge world: one forge adapter inside the real service, with a forge it talks to (GitHub's fake
 * API, real git repositories, …) that the forge contract (forge-contract.ts) acts on as the
 * people and CI of a repository do, and reads back through the service's public reads and the
 * target branch.
 *
 * To put a forge adapter under the contract: write a world (github-world.ts and git-world.ts are
 * two), list what its forge can express in `capabilities`, add it to WORLDS (worlds.ts) and give it
 * a test file running the contract (github.slow.test.ts is one). A scenario runs in every world that has
 * all its capabilities; a world lacking one does not get the scenario at all (README.md lists which
 * scenario runs where).
 *
 * Conventions every world keeps:
 * - One repository, its queue on `main` created with the service's defaults (merge method squash),
 *   CI reporting the check `build`, which the forge's own settings require where it has them (GitHub
 *   branch protection), else the repository's required statuses: set up by `create`.
 * - Actions change the forge and, where the forge tells greenline (webhook deliveries), tell it at
 *   once, as the forge would; effects are not run. `tick()` runs what greenline does on its own in
 *   one poll interval: the clock moves on by POLL_INTERVAL_MS, greenline polls the forge (the
 *   safety net every forge has), then runs every due effect. Scenarios tick until the queue is still.
 * - A PR is known by its number and the version of its change (`v1`, then what `pushToPr` gives);
 *   the target holds PR changes (`#1 v1`) and outside pushes (their label): `targetHolds()`.
 */
import type { AuthContext, MergeQueueService, QueueKey } from '../../src/app/service-port.js';
import type { CiStatus } from '../../src/forge/port.js';

/** The poll interval of every world's service; `tick()` lets one pass. */
export const POLL_INTERVAL_MS = 60_000;

/**
 * What a forge can express beyond the common core (open, push to and report CI on PRs; push to the
 * target outside the queue; build, test and merge).
 */
export const CAPABILITIES = [
  /** A PR can be closed without merging. */
  'close',
  /** A PR can conflict with its target, and stop conflicting when the target moves. */
  'conflicts',
  /** A PR's base branch can be changed. */
  'baseChange',
  /** A PR can be merged outside the queue, and the forge says it was merged (not just closed). */
  'outsideMerge',
  /** Labels on PRs, seen by greenline (the queue's enqueueing label). */
  'labels',
  /** Comments on PRs, seen by greenline (`/greenline merge`, `/greenline cancel`). */
  'comments',
  /** Draft PRs: opened as draft, marked ready, converted back to draft. */
  'drafts',
  /** Commenters without write access, whose commands greenline must not carry out (with `comments`). */
  'permissions',
  /** CI results the forge holds but never told greenline of (a lost webhook delivery). */
  'lostDeliveries',
  /**
   * CI results the forge holds are read at every poll (a forge that sends no status event or never
   * delivers again: Gitea, Forgejo), so one never told is acted on at the next poll.
   */
  'polledChecks',
  /** "Require branches to be up to date before merging" on the target (GitHub's strict protection). */
  'strictProtection',
  /**
   * A PR can be opened on another PR's head branch (stacked), and is retargeted onto the target once the
   * PR below it merged: by the forge itself (GitHub's native stacks) or by its author.
   */
  'stacks',
  /** Commits compared: the paths a test commit and a PR change (a PR `n` changes `pr-<n>.txt`). */
  'changedFiles',
] as const;
export type Capability = (typeof CAPABILITIES)[number];

export interface OpenPrOptions {
  /** The version of its change (default `v1`). */
  version?: string;
  /** Opened as a draft (capability `drafts`). */
  draft?: boolean;
  /** Its change conflicts with the target (capability `conflicts`): the target moves to a clashing commit. */
  conflicting?: boolean;
}

export interface ForgeWorld {
  /** The service with this world's forge adapter, and the queue of `main`. */
  readonly service: MergeQueueService;
  readonly ctx: AuthContext;
  readonly key: QueueKey;

  /** Opens PR `n` on the current target, not submitted to the queue. */
  openPr(n: number, opts?: OpenPrOptions): Promise<void>;
  /** The author pushes a new version of PR `n`'s change. */
  pushToPr(n: number, version: string): Promise<void>;
  /** Someone pushes a commit to the target outside the queue; `label` names it in `targetHolds`. */
  pushToTarget(label: string): Promise<void>;
  /** CI reports a check of a commit. */
  reportCi(sha: string, context: string, state: CiStatus['state']): Promise<void>;

  /** Closes PR `n` without merging it (capability `close`). */
  closePr?(n: number): Promise<void>;
  /** The target moves so that PR `n` no longer conflicts (capability `conflicts`). */
  resolveConflict?(n: number): Promise<void>;
  /** Changes PR `n`'s base branch (capability `baseChange`). */
  changeBase?(n: number, branch: string): Promise<void>;
  /** Someone merges PR `n` into the target outside the queue (capability `outsideMerge`). */
  mergeOutside?(n: number): Promise<void>;
  /**
   * Adds or removes a label of PR `n` (capability `labels`), as one with write access or (`by: 'reader'`,
   * capability `permissions`) one who may label PRs but not write to the repository.
   */
  setLabel?(n: number, label: string, on: boolean, by?: 'writer' | 'reader'): Promise<void>;
  /**
   * A user comments on PR `n` (capability `comments`): one with write access, or (`by: 'reader'`,
   * capability `permissions`) one who may only read the repository.
   */
  comment?(n: number, body: string, by?: 'writer' | 'reader'): Promise<void>;
  /** greenline's answers to commands on PR `n`, oldest first (capability `comments`). */
  replies?(n: number): Promise<string[]>;
  /** Marks draft PR `n` ready for review, or (false) converts it to a draft (capability `drafts`). */
  setDraft?(n: number, draft: boolean): Promise<void>;
  /**
   * CI reports a check of a commit to the forge, and greenline is never told (capability
   * `lostDeliveries` or `polledChecks`).
   */
  reportCiUnheard?(sha: string, context: string, state: CiStatus['state']): Promise<void>;
  /** The target starts requiring branches to be up to date before merging (capability `strictProtection`). */
  requireUpToDate?(): Promise<void>;
  /** Opens PR `n` on PR `below`'s head branch, its change on top of `below`'s (capability `stacks`). */
  openStackedPr?(n: number, below: number): Promise<void>;
  /** Stacked PR `n`, the PR below it merged, is retargeted onto the target (capability `stacks`). */
  retargetStacked?(n: number): Promise<void>;

  /** One poll interval passes: greenline polls the forge, then runs every due effect. */
  tick(): Promise<void>;
  /** The sha of the target branch on the forge. */
  targetSha(): Promise<string>;
  /** What the target holds, sorted: `#<n> <version>` for PR changes, the label of outside pushes. */
  targetHolds(): Promise<string[]>;
  close(): Promise<void>;
}

/** A world's name, what it can express, and how to make one. */
export interface WorldKind {
  name: string;
  capabilities: ReadonlySet<Capability>;
  create(): Promise<ForgeWorld>;
}
