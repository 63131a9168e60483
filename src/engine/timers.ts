/**
 * Time-driven work (contract §4 `testingTimeoutMinutes`, `notReadyTimeoutHours`, batching wait, and
 * the edges of freezes: freeze.ts).
 * Time only arrives with events; `tick` handles whatever is due and every decision asks for a
 * wakeup at the next deadline (`scheduleWakeup`), once per deadline.
 */
import { HOUR_MS } from '../lib/time.js';
import { attemptDeadline, missingStatuses, startDeadline, timeoutMinutes } from './ci-retries.js';
import { quarantinedNow } from './quarantine.js';
import type { Draft } from './draft.js';
import { nextFreezeEdge } from './freeze.js';
import { runFailed } from './run-results.js';
import { isInFlight } from './runs.js';
import { move } from './transitions.js';

/**
 * Runs past the testing timeout fail (TEST_RUN_TIMEOUT, a test failure, contract §3 #16); runs with
 * a required status still unreported past `requiredStatusStartTimeoutMinutes` fail sooner
 * (REQUIRED_STATUS_NEVER_STARTED, naming it).
 */
export function expireRuns(d: Draft): void {
  for (const run of [...d.allRuns()]) {
    if (!isInFlight(run)) continue;
    const start = startDeadline(d, run);
    if (start !== null && start <= d.at) {
      d.emit({ kind: 'cancelCi', key: `${run.id}:cancelCi`, runId: run.id });
      const missing = missingStatuses(run, quarantinedNow(d.config, d.internal.autoQuarantined))
        .map((c) => `"${c}"`)
        .join(', ');
      const minutes = d.config.requiredStatusStartTimeoutMinutes;
      runFailed(
        d,
        run,
        'REQUIRED_STATUS_NEVER_STARTED',
        `required status ${missing} not reported within ${minutes} minute${minutes === 1 ? '' : 's'}`,
      );
      continue;
    }
    if (attemptDeadline(d, run) > d.at) continue;
    d.emit({ kind: 'cancelCi', key: `${run.id}:cancelCi`, runId: run.id });
    runFailed(d, run, 'TEST_RUN_TIMEOUT', `no result within ${timeoutMinutes(d)} minutes`);
  }
}

/** Entries waiting in NOT_READY longer than `notReadyTimeoutHours` are cancelled (0 = never). */
export function expireNotReady(d: Draft): void {
  const hours = d.config.notReadyTimeoutHours;
  if (hours <= 0) return;
  for (const e of [...d.allEntries()]) {
    if (e.state === 'NOT_READY' && e.stateChangedAt + hours * HOUR_MS <= d.at) {
      move(d, e, 'CANCELLED', 'NOT_READY_TIMEOUT_EXPIRED');
    }
  }
}

/** Asks for a tick at the next deadline (a freeze's start or end among them), unless an earlier or equal wakeup is already pending. */
export function requestWakeup(d: Draft, batchDeadline: number | null): void {
  let next = Math.min(batchDeadline ?? Infinity, nextFreezeEdge(d) ?? Infinity);
  for (const run of d.allRuns()) {
    if (!isInFlight(run)) continue;
    next = Math.min(next, attemptDeadline(d, run), startDeadline(d, run) ?? Infinity);
  }
  const hours = d.config.notReadyTimeoutHours;
  if (hours > 0) {
    for (const e of d.allEntries())
      if (e.state === 'NOT_READY') next = Math.min(next, e.stateChangedAt + hours * HOUR_MS);
  }
  if (next === Infinity) return;
  const pending = d.internal.wakeupAt;
  if (pending !== null && pending > d.at && pending <= next) return;
  d.internal.wakeupAt = next;
  d.emit({ kind: 'scheduleWakeup', key: `wakeup:${next}`, at: next });
}
