/**
 * What the sampled model (eta-model.ts) is given of a queue for its estimates (eta.ts): the queue's
 * groups in order (parts of bisections, passed and failing PRs, runs in flight, groups waiting to
 * start), the rate PRs arrive at, and how many samples to take.
 */
import { isInFlight } from './runs.js';
import type { ModelGroup } from './eta-model.js';
import type { Bisection } from './working-state.js';
import type { Entry, QueueSnapshot, TestRun } from './types.js';

/** PRs the scheduler would start together, as the outlook forms them (eta.ts). */
export interface Group {
  members: Entry[];
  lane: number;
  /** Earliest start: now, or the batching deadline. */
  readyAt: number;
  batchWait: boolean;
}

/** Samples of the model per estimate; fewer for long queues (MODEL_WORK PR-samples in all), never below the minimum. */
const MODEL_SAMPLES = 51;
const MODEL_SAMPLES_MIN = 11;
const MODEL_WORK = 100_000;

/** How many samples the model takes for a queue of `prs` admitted PRs. */
export const modelSamples = (prs: number): number =>
  Math.min(MODEL_SAMPLES, Math.max(MODEL_SAMPLES_MIN, Math.floor(MODEL_WORK / Math.max(1, prs))));

/** PRs arriving per ms, from the submissions of the PRs in the queue (the latest 20); 0 with fewer than 3. */
export function arrivalRate(snapshot: QueueSnapshot, now: number): number {
  const times = snapshot.entries
    .map((e) => e.submittedAt)
    .filter((t) => t <= now)
    .sort((a, b) => b - a)
    .slice(0, 20);
  if (times.length < 3) return 0;
  const span = now - times[times.length - 1];
  return span > 0 ? (times.length - 1) / span : 0;
}

/** The queue's groups in order, as the model (eta-model.ts) takes them. */
export function modelGroups(
  snapshot: QueueSnapshot,
  admitted: readonly Entry[],
  lanes: readonly number[],
  groupOf: ReadonlyMap<number, Group>,
  size: number,
  inFlightRun: (e: Entry) => TestRun | undefined,
): ModelGroup[] {
  const bisections = (snapshot.internal as { bisections?: Bisection[] }).bisections ?? [];
  const partOf = new Map<number, Bisection['parts'][number]>();
  for (const b of bisections) for (const part of b.parts) for (const n of part.prNumbers) partOf.set(n, part);
  const runs = new Map(snapshot.runs.map((run) => [run.id, run]));
  const out: ModelGroup[] = [];
  const seen = new Set<unknown>();
  admitted.forEach((e, i) => {
    const lane = lanes[i];
    const part = partOf.get(e.prNumber);
    if (part) {
      if (seen.has(part)) return;
      seen.add(part);
      const run = part.runId === null ? undefined : runs.get(part.runId);
      out.push({
        members: part.prNumbers,
        lane,
        kind: 'part',
        readyAt: 0,
        ...(isInFlight(run) ? { runStart: run!.createdAt } : {}),
      });
      return;
    }
    if (e.state === 'TESTS_PASSED') {
      out.push({ members: [e.prNumber], lane, kind: 'passed', readyAt: 0 });
      return;
    }
    if (e.state === 'PENDING_FAILURE') {
      const key = e.runId ?? e;
      if (seen.has(key)) return;
      seen.add(key);
      const members = admitted.filter(
        (m) => m === e || (e.runId !== null && m.runId === e.runId && m.state === 'PENDING_FAILURE'),
      );
      out.push({ members: members.map((m) => m.prNumber), lane, kind: 'failing', readyAt: 0 });
      return;
    }
    const run = inFlightRun(e);
    if (run) {
      if (seen.has(run.id)) return;
      seen.add(run.id);
      const members = admitted.filter((m) => m.runId === run.id && !partOf.has(m.prNumber));
      out.push({
        members: members.map((m) => m.prNumber),
        lane,
        kind: 'running',
        readyAt: 0,
        runStart: run.createdAt,
        mainSlot: run.queueType === 'main',
      });
      return;
    }
    const group = groupOf.get(e.prNumber);
    if (!group || seen.has(group)) return;
    seen.add(group);
    const members = group.members.filter((m) => !partOf.has(m.prNumber)).map((m) => m.prNumber);
    out.push({
      members,
      lane,
      kind: 'waiting',
      readyAt: group.readyAt,
      ...(group.batchWait ? { missing: size - group.members.length } : {}),
    });
  });
  return out;
}
