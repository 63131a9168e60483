/**
 * Forge observations: what a forge adapter reports it saw (a webhook delivery), in the service's
 * words rather than the forge's. Adapters translate their payloads into these (GitHub:
 * adapters/forge/github/observations.ts); app/forge/forge-observations.ts applies them to the queues.
 */
import type { PrInfo } from './engine/types.js';
import type { CiStatus } from './ports.js';

/**
 * A queue command (contract §6.11): from a PR comment (`/greenline merge --priority high`) or from
 * the queue's enqueueing label being added (merge) or removed (cancel).
 */
export type QueueCommand =
  | { kind: 'merge'; priority?: string; noBatch: boolean }
  | { kind: 'cancel' }
  | { kind: 'invalid'; message: string };

export type ForgeObservation =
  /** Something of the PR changed (head, base, title, draft state): its current view is to be read. */
  | { kind: 'prTouched'; prNumber: number }
  /** The forge's current view of the PR; null when it is no longer open, `merged` telling how it left. */
  | { kind: 'prSeen'; prNumber: number; pr: PrInfo | null; merged: boolean }
  /** The PR was closed, by a merge or not. */
  | { kind: 'prClosed'; prNumber: number; merged: boolean }
  /** The PR became a draft. */
  | { kind: 'prConvertedToDraft'; prNumber: number }
  /**
   * A label was added to or removed from a PR whose base is `baseBranch`: a merge or cancel when it is
   * the enqueueing label of that branch's queue and label commands are enabled. `sender`: who set or
   * removed it (login), when the forge says.
   */
  /** A label added to or removed from the PR, by `sender` (login, when the forge says). */
  | { kind: 'prLabel'; prNumber: number; baseBranch: string; label: string; added: boolean; sender?: string }
  /**
   * A queue command in a comment on the PR, by `author` (login, when known); `authorAssociation`: how
   * the forge relates the author to the repository (GitHub's `author_association`), when it says.
   */
  | { kind: 'prComment'; prNumber: number; command: QueueCommand; author?: string; authorAssociation?: string }
  /** A branch was pushed to (created or moved): the queue of that target branch reads its head. */
  | { kind: 'branchPushed'; branch: string }
  /** A CI status of a commit (a test commit's, when it is one). */
  | { kind: 'ciStatus'; sha: string; status: CiStatus }
  /** The checks of a commit completed: every check of it is to be read, in case one was missed. */
  | { kind: 'checksCompleted'; sha: string }
  /** The checks of a commit could not run (a broken workflow file, runs awaiting approval), `detail` says why. */
  | { kind: 'checksBlocked'; sha: string; detail: string };

/** A delivery translated: the repository it is about and what was seen in it. */
export interface ForgeDelivery {
  repo: { host: string; owner: string; name: string };
  observations: ForgeObservation[];
}
