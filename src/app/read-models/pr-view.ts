/** A PR's entry as the service answers it: its state, readiness, why, and where it stands. */
import type { PrOutlook } from '../../engine/eta.js';
import type { Entry, Readiness } from '../../engine/types.js';
import type { RepoSite } from '../../forge/links.js';
import type { PrReason } from '../../engine/pr-reason.js';

export interface PrView {
  entry: Entry;
  readiness: Readiness;
  /** True while the entry is non-terminal. */
  isCurrentlySubmittedToQueue: boolean;
  /** Why it is in its state, in words (pr-reason.ts). */
  reason: PrReason;
  /** Position, what it waits on and estimated merge time; null once terminal. */
  outlook: PrOutlook | null;
  /** The queued PRs of its stack, bottom first, itself included (engine/stacks.ts); empty when in none. */
  stack: number[];
  /** Where the repository's PRs and commits are shown on its forge. */
  site: RepoSite;
}
