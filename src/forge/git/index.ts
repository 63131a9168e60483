/** The git forge adapter (`--forge git`): see git-forge.ts. */
import { GitForge, type GitForgeOptions } from './git-forge.js';

export { GitForge, type GitForgeOptions } from './git-forge.js';

export function createGitForge(opts: GitForgeOptions): GitForge {
  return new GitForge(opts);
}
