/** The forge contract (forge-contract.ts) for the git forge on real git repositories (git-world.ts). */
import { forgeContract } from './forge-contract.js';
import { gitWorld } from './git-world.js';

forgeContract(gitWorld);
