/**
 * Where each PR of a queue stands, what it waits on, and when it should merge: a pure function of
 * the queue snapshot (its settings included), the queue's observed statistics and `now`.
 *
 * Position: 1-based in queue order among the admitted PRs (PENDING and later); in parallel mode
 * within the PR's lane, the lanes being the engine's (`laneHeads`). NOT_READY PRs have none.
 *
 * Groups: the PRs that have not started form groups in queue order as the scheduler forms them: one
 * PR, or (with `batch`) up to the batch size of consecutive PRs (in parallel mode, of the same lane);
 * PRs that test alone (`noBatch`, or failed on their own before: blame.ts) alone. A group smaller
 * than the batch size starts no earlier than its batching deadline (oldest admission +
 * batchingMaxWaitTimeMinutes), except in adaptive mode. What a PR waits on follows them: a group
 * takes the first of the `concurrency` slots (adaptive mode: the window) free, runs in flight
 * holding theirs for the median CI time D of the recent finished main runs.
 * Groups take the slots in queue order: the scheduler's share of the slots per lane (parallel mode,
 * scheduling.ts) is not modelled.
 *
 * Estimate: the sampled model of the engine (eta-model.ts) from the queue's groups (eta-groups.ts) and its recent
 * finished runs (`queueStatistics`, eta-statistics.ts): its estimate and p10–p90 range of the PR's merge time, given
 * that the PR's own tests pass. No finished run yet: no estimate.
 * - A paused or frozen queue merges nothing until someone or something resumes it, a queue whose
 *   target branch is not known tests nothing until it is read: no estimate.
 */
import { MINUTE_MS } from '../lib/time.js';
import { adaptiveStatus } from './adaptive.js';
import { testsAlone } from './blame.js';
import { queueOrder } from './ordering.js';
import { freezeStatus } from './freeze.js';
import { laneHeads } from './parallel-graph.js';
import { NOT_READY_WHY, whyNotReady } from './readiness.js';
import { QUEUE_STATE_MEANING, TARGET_UNREAD_SENTENCE } from './queue-states.js';
import { isInFlight } from './runs.js';
import { sampleMerges } from './eta-model.js';
import { SlotBoard, seedOf } from './eta-sampling.js';
import { arrivalRate, type Group, modelGroups, modelSamples } from './eta-groups.js';
import type { QueueStatistics } from './eta-statistics.js';
import type { Entry, QueueSnapshot, TestRun } from './types.js';

/**
 * What a PR waits on. `TARGET_UNREAD` is for a queue whose target branch was never read from the
 * forge (nothing can be tested before it is). `FROZEN` is for a queue whose merges are suspended by a freeze window (the
 * snapshot's `frozen` flag, where the queue has one).
 */
export const WAITING_CODES = [
  'TARGET_UNREAD',
  'NOT_READY',
  'IMPACTED_TARGETS',
  'QUEUE_PAUSED',
  'QUEUE_DRAINING',
  'SWITCHING_MODES',
  'FROZEN',
  'PRS_AHEAD',
  'TEST_SLOT',
  'BATCH_WAIT',
  'RUN_IN_FLIGHT',
  'MERGE_ORDER',
  'MERGING',
  'FAILING',
] as const;
export type WaitingCode = (typeof WAITING_CODES)[number];

export interface WaitingOn {
  code: WaitingCode;
  /** A sentence. */
  message: string;
}

export interface PrOutlook {
  /** 1-based place in queue order (parallel mode: in its lane); null while NOT_READY. */
  position: number | null;
  waitingOn: WaitingOn;
  /**
   * Epoch ms: the model's estimate, the median of its merge times weighted by 1 / wait (eta-model.ts
   * `relativeMedian`); null when it cannot be estimated.
   */
  estimatedMergeAt: number | null;
  /** The 10th and 90th percentiles of the model's merge times, epoch ms; null without an estimate. */
  estimatedMergeRange: { p10: number; p90: number } | null;
  /** Parallel mode, with its impacted targets known: its lane in words (lane-words.ts). */
  lane?: string;
}

/** What holds every PR of a queue whose target branch is not known: nothing can be tested on it. */
function targetHold(snapshot: Pick<QueueSnapshot, 'targetSha'>): WaitingOn | null {
  if (snapshot.targetSha !== null) return null;
  return { code: 'TARGET_UNREAD', message: TARGET_UNREAD_SENTENCE };
}

/** What holds every PR not admitted yet, whatever its own readiness: a queue that admits none. */
function admissionHold(state: QueueSnapshot['state']): WaitingOn | null {
  switch (state) {
    case 'PAUSED':
      return { code: 'QUEUE_PAUSED', message: QUEUE_STATE_MEANING.PAUSED };
    case 'DRAINING':
      return { code: 'QUEUE_DRAINING', message: QUEUE_STATE_MEANING.DRAINING };
    case 'SWITCHING_MODES':
      return { code: 'SWITCHING_MODES', message: QUEUE_STATE_MEANING.SWITCHING_MODES };
    case 'RUNNING':
      return null;
  }
}

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
/** `12 minutes`, or `under a minute`. */
const minutes = (ms: number): string =>
  ms < MINUTE_MS ? 'under a minute' : plural(Math.round(ms / MINUTE_MS), 'minute');
/** `about 12 minutes`, or `under a minute`. */
const aboutMinutes = (ms: number): string => (ms < MINUTE_MS ? minutes(ms) : `about ${minutes(ms)}`);

/** Position, waiting reason and estimated merge time of every non-terminal entry, by PR number. */
export function queueOutlook(snapshot: QueueSnapshot, stats: QueueStatistics, now: number): Map<number, PrOutlook> {
  const out = new Map<number, PrOutlook>();
  const { config } = snapshot;
  const admitted = queueOrder(snapshot, { includeNotReady: false });
  const parallel = config.mode === 'parallel';
  const lanes = parallel ? laneHeads(admitted) : admitted.map(() => 0);
  const where = parallel ? 'in its lane' : 'in the queue';

  const positions = new Map<number, number>();
  const depth = new Map<number, number>();
  admitted.forEach((e, i) => {
    const p = (depth.get(lanes[i]) ?? 0) + 1;
    depth.set(lanes[i], p);
    positions.set(e.prNumber, p);
  });

  // A PR not admitted yet waits first for the target branch and the queue's state, then for what
  // keeps it not ready.
  const unread = targetHold(snapshot);
  const hold = unread ?? admissionHold(snapshot.state);
  for (const e of snapshot.entries) {
    if (e.state !== 'NOT_READY') continue;
    const why = whyNotReady(snapshot, e);
    out.set(e.prNumber, {
      position: null,
      waitingOn:
        hold ??
        (why === 'IMPACTED_TARGETS_MISSING'
          ? { code: 'IMPACTED_TARGETS', message: 'It waits for the impacted targets of its head to be uploaded.' }
          : {
              code: 'NOT_READY',
              message:
                why === null ? 'It is about to be admitted.' : `It is not ready to be tested: ${NOT_READY_WHY[why]}.`,
            }),
      estimatedMergeAt: null,
      estimatedMergeRange: null,
    });
  }

  const freeze = freezeStatus(snapshot.config.freezes, now);
  const halt: WaitingOn | null =
    unread ??
    (snapshot.state === 'PAUSED'
      ? { code: 'QUEUE_PAUSED', message: QUEUE_STATE_MEANING.PAUSED }
      : freeze.frozen
        ? {
            code: 'FROZEN',
            message: `The queue is frozen (${freeze.reason}) until ${new Date(freeze.until).toISOString()}: nothing merges before.`,
          }
        : null);
  if (halt) {
    for (const e of admitted)
      out.set(e.prNumber, {
        position: positions.get(e.prNumber)!,
        waitingOn: halt,
        estimatedMergeAt: null,
        estimatedMergeRange: null,
      });
    return out;
  }

  const D = stats.ciMs;
  const adaptive = adaptiveStatus(snapshot);
  const slots = Math.max(1, adaptive?.concurrency ?? config.concurrency);
  const runs = new Map(snapshot.runs.map((run) => [run.id, run]));
  const runEnd = (run: TestRun): number => (D === null ? Infinity : Math.max(now, run.createdAt + D));
  const inFlightRun = (e: Entry): TestRun | undefined => {
    const run = e.runId === null ? undefined : runs.get(e.runId);
    return isInFlight(run) ? run : undefined;
  };

  // Slots, held by the main runs in flight.
  const board = new SlotBoard(
    slots,
    snapshot.runs.filter((run) => run.queueType === 'main' && isInFlight(run)).map(runEnd),
  );

  // Groups of the PRs that have not started, in order of their first member.
  const waiting = admitted.filter((e) => e.state === 'PENDING' && !inFlightRun(e));
  // The batch size groups form with; in adaptive mode a queue shorter than it starts its PRs alone.
  const batchSize = Math.max(1, config.batch ? (adaptive?.batchSize ?? config.batchingMinSize) : 1);
  const size = adaptive && waiting.length < batchSize ? 1 : batchSize;
  const groupOf = new Map<number, Group>();
  const open = new Map<number, Group>();
  admitted.forEach((e, i) => {
    if (e.state !== 'PENDING' || inFlightRun(e)) {
      if (!parallel) open.clear(); // single mode: a batch is consecutive PRs
      return;
    }
    const lane = lanes[i];
    const current = open.get(lane);
    if (current && current.members.length < size && !testsAlone(e) && !testsAlone(current.members[0])) {
      current.members.push(e);
      groupOf.set(e.prNumber, current);
      return;
    }
    const group: Group = { members: [e], lane, readyAt: now, batchWait: false };
    open.set(lane, group);
    groupOf.set(e.prNumber, group);
  });
  for (const group of new Set(groupOf.values())) {
    const m = group.members;
    const fills = m.length >= size || testsAlone(m[0]) || adaptive !== null || snapshot.state !== 'RUNNING';
    if (!fills && !m.some((e) => e.runId !== null)) {
      const deadline =
        Math.min(...m.map((e) => e.admittedAt ?? e.submittedAt)) + config.batchingMaxWaitTimeMinutes * MINUTE_MS;
      if (deadline > now) Object.assign(group, { readyAt: deadline, batchWait: true });
    }
  }

  const model =
    D === null
      ? null
      : sampleMerges({
          groups: modelGroups(snapshot, admitted, lanes, groupOf, size, inFlightRun),
          now,
          slots,
          durations: stats.durations?.length ? stats.durations : [D],
          prFailureRate: stats.prFailureRate ?? stats.failureRate,
          prOutcomes: stats.prOutcomes ?? 0,
          arrivalRate: arrivalRate(snapshot, now),
          grouping: {
            size: batchSize,
            waitMs: config.batch && !adaptive ? config.batchingMaxWaitTimeMinutes * MINUTE_MS : 0,
          },
          seed: seedOf(
            `${snapshot.repo.host}/${snapshot.repo.owner}/${snapshot.repo.name}:${snapshot.targetBranch}@${now}`,
          ),
          samples: modelSamples(admitted.length),
        });

  // What each PR waits on, in queue order; a waiting group takes the first free slot.
  const starts = new Map<Group, number>();
  const ahead = new Map<number, number>(); // PRs ahead in the lane not merged yet
  admitted.forEach((e, i) => {
    const lane = lanes[i];
    const position = positions.get(e.prNumber)!;
    const before = ahead.get(lane) ?? 0;
    ahead.set(lane, before + 1);
    if (e.state === 'PENDING_FAILURE') {
      out.set(e.prNumber, {
        position,
        waitingOn: {
          code: 'FAILING',
          // A failed group whose run is in flight again is retried (ci-retries.ts): the retry decides.
          message: inFlightRun(e)
            ? 'Its test run failed and is being retried; the runs behind it are tested without it until the retry tells whether the failure is its own.'
            : 'Its test run failed; it waits for the runs ahead of it to tell whether the failure is its own.',
        },
        estimatedMergeAt: null,
        estimatedMergeRange: null,
      });
      return;
    }
    let waitingOn: WaitingOn;
    const run = inFlightRun(e);
    if (e.state === 'TESTS_PASSED') {
      waitingOn =
        before > 0
          ? {
              code: 'MERGE_ORDER',
              message: `Its tests passed; it merges once the ${plural(before, 'PR')} ahead of it ${where} have merged.`,
            }
          : { code: 'MERGING', message: 'Its tests passed; it is being merged.' };
    } else if (run) {
      const typical = D === null ? '' : `; runs take ${aboutMinutes(D)}`;
      waitingOn = {
        code: 'RUN_IN_FLIGHT',
        message: `Its test run is in flight (started ${minutes(now - run.createdAt)} ago${typical}).`,
      };
    } else {
      const group = groupOf.get(e.prNumber)!;
      let start = starts.get(group);
      if (start === undefined) {
        start = board.freeAt(group.readyAt);
        board.occupy(start + (D ?? 0));
        starts.set(group, start);
      }
      const pendingAhead = group.members[0] === e ? before : 0;
      waitingOn = group.batchWait
        ? {
            code: 'BATCH_WAIT',
            message: `It waits for its batch to fill (${group.members.length} of ${size} PRs) or for ${group.readyAt - now < MINUTE_MS ? 'under a minute' : `at most ${minutes(group.readyAt - now)}`}.`,
          }
        : start <= now
          ? { code: 'TEST_SLOT', message: 'Its test run starts now.' }
          : pendingAhead > 0
            ? {
                code: 'PRS_AHEAD',
                message: `${plural(pendingAhead, 'PR')} ${pendingAhead === 1 ? 'is' : 'are'} ahead of it ${where}.`,
              }
            : { code: 'TEST_SLOT', message: `It waits for a free test slot: all ${slots} are in use.` };
    }
    const estimate = model?.get(e.prNumber);
    out.set(e.prNumber, {
      position,
      waitingOn,
      estimatedMergeAt: estimate ? Math.round(estimate.estimate) : null,
      estimatedMergeRange: estimate ? { p10: Math.round(estimate.p10), p90: Math.round(estimate.p90) } : null,
    });
  });
  return out;
}
