/** The forge contract (forge-contract.ts) for the gitlab forge on the fake GitLab (gitlab-world.ts). */
import { forgeContract } from './forge-contract.js';
import { gitlabWorld } from './gitlab-world.js';

forgeContract(gitlabWorld);
