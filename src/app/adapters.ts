/** The forge and CI adapters the application drives, chosen per repository binding. */
import type { ForgePort, RepoBinding } from '../forge/port.js';
import type { CiPort } from '../ci/port.js';

export interface Adapters {
  /** Forge adapters by binding kind; a kind without an adapter is not available in this process. */
  forges: Partial<Record<RepoBinding['forge'], ForgePort>>;
  /** The built-in CI runner, used for repositories that have a CI command. */
  ci: CiPort;
}

export function forgeFor(adapters: Adapters, binding: RepoBinding): ForgePort {
  const forge = adapters.forges[binding.forge];
  if (!forge)
    throw new Error(`No "${binding.forge}" forge adapter is available for ${binding.repo.owner}/${binding.repo.name}`);
  return forge;
}
