/** The git forge adapter (`--forge git`): its definition, and git-forge.ts. */
import { GitForge, type GitForgeOptions } from './git-forge.js';

export { gitForge } from './definition.js';
export { GitForge, type GitForgeOptions } from './git-forge.js';

export function createGitForge(opts: GitForgeOptions): GitForge {
  return new GitForge(opts);
}
