/** The forge contract (forge-contract.ts) for the gitea forge on the fake Gitea (gitea-world.ts). */
import { forgeContract } from './forge-contract.js';
import { giteaWorld } from './gitea-world.js';

forgeContract(giteaWorld);
