/** The forge contract (forge-contract.ts) for the in-memory forge the service and API tests use (in-memory-world.ts). */
import { forgeContract } from './forge-contract.js';
import { inMemoryWorld } from './in-memory-world.js';

forgeContract(inMemoryWorld);
