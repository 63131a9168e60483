/**
 * The end-to-end suite. Each scenario (scenarios/*.ts) runs the built server as its own process, with
 * its own data dir, git remote and CI command. They are declared here, in one file, so that they run
 * side by side: the test runner runs files one at a time on a two-core machine, and the testing
 * timeout scenario spends a minute waiting for its run to time out.
 */
import { afterAll } from 'vitest';
import { killAll, requireBuilt } from './greenline-process.js';
import { badInputScenario } from './scenarios/bad-input.js';
import { misbehavingCiScenario } from './scenarios/misbehaving-ci.js';
import { batchingScenario } from './scenarios/batching.js';
import { freezeScenario } from './scenarios/freeze.js';
import { parallelLanesScenario } from './scenarios/parallel-lanes.js';
import { singleModeScenario } from './scenarios/single-mode.js';
import { testingTimeoutScenario } from './scenarios/testing-timeout.js';

requireBuilt();
// Each scenario stops its own server; this only catches what a failed set-up left running.
afterAll(killAll);

testingTimeoutScenario();
singleModeScenario();
batchingScenario();
parallelLanesScenario();
badInputScenario();
freezeScenario();
misbehavingCiScenario();
