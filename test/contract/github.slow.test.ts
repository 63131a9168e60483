/** The forge contract (forge-contract.ts) for the github forge on the fake GitHub API (github-world.ts). */
import { forgeContract } from './forge-contract.js';
import { githubWorld } from './github-world.js';

forgeContract(githubWorld);
