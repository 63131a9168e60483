/**
 * Every forge world of the forge contract. A new forge adapter adds its world here, and a test file
 * beside this one that runs the contract for it (as github.slow.test.ts does): `<name>.slow.test.ts`
 * for a world over real git or HTTP (run by `npm run test:all`), `<name>.test.ts` for one in memory
 * (the quick loop's).
 */
import type { WorldKind } from './forge-world.js';
import { gitWorld } from './git-world.js';
import { forgejoWorld, giteaWorld } from './gitea-world.js';
import { githubWorld } from './github-world.js';
import { gitlabWorld } from './gitlab-world.js';
import { inMemoryWorld } from './in-memory-world.js';

export const WORLDS: readonly WorldKind[] = [
  githubWorld,
  gitWorld,
  giteaWorld,
  forgejoWorld,
  gitlabWorld,
  inMemoryWorld,
];
