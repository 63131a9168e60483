/** The forge contract (forge-contract.ts) for the gitea forge on the fake Forgejo (gitea-world.ts). */
import { forgeContract } from './forge-contract.js';
import { forgejoWorld } from './gitea-world.js';

forgeContract(forgejoWorld);
