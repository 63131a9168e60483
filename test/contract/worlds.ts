/**
 * Every forge world of the forge contract. A new forge adapter adds its world here, and a test file
 * `<name>.test.ts` beside this one that runs the contract for it (as github.test.ts does).
 */
import type { WorldKind } from './forge-world.js';
import { gitWorld } from './git-world.js';
import { forgejoWorld, giteaWorld } from './gitea-world.js';
import { githubWorld } from './github-world.js';

export const WORLDS: readonly WorldKind[] = [githubWorld, gitWorld, giteaWorld, forgejoWorld];
