/** The forge and CI adapters the application drives, chosen per repository binding. */
import type { PrInfo } from '../engine/types.js';
import type { CiPort, ForgePort, RepoBinding } from '../ports.js';

export interface Adapters {
  /** Forge adapters by binding kind; a kind without an adapter is not available in this process. */
  forges: Partial<Record<RepoBinding['forge'], ForgePort>>;
  /** The built-in CI runner, used for repositories that have a CI command. */
  ci: CiPort;
}

export function forgeFor(adapters: Adapters, binding: RepoBinding): ForgePort {
  const forge = adapters.forges[binding.forge];
  if (!forge) throw new Error(`No "${binding.forge}" forge adapter is available for ${binding.repo.owner}/${binding.repo.name}`);
  return forge;
}

/**
 * A PR as the forge sees it relative to the queue's target branch. Forges without PR base metadata
 * (the git forge) take the target branch as an optional third argument to compute the base and the
 * mergeability against it; the others ignore it.
 */
export function readPullRequest(forge: ForgePort, binding: RepoBinding, number: number, targetBranch: string): Promise<PrInfo | null> {
  const read = forge.getPullRequest as (this: ForgePort, repo: RepoBinding, number: number, targetBranch?: string) => Promise<PrInfo | null>;
  return read.call(forge, binding, number, targetBranch);
}
