/**
 * Queue order (contract §6.8, DESIGN §3 "Ordering"). Entries whose group started testing this trip
 * keep the position they started in (`internal.order`): a later, higher-priority submission never
 * interrupts them (only urgent pre-empts, see scheduling.ts). The entries that have not started
 * follow, by priority value, then admission time, then submission time, then PR number (for
 * determinism). NOT_READY entries come last, by submission.
 */
import { readInternal } from './working-state.js';
import { isTerminal, type Entry, type QueueSnapshot } from './types.js';

export function comparePending(a: Entry, b: Entry): number {
  return (
    a.priorityValue - b.priorityValue ||
    (a.admittedAt ?? Infinity) - (b.admittedAt ?? Infinity) ||
    a.submittedAt - b.submittedAt ||
    a.prNumber - b.prNumber
  );
}

function compareNotReady(a: Entry, b: Entry): number {
  return a.submittedAt - b.submittedAt || a.prNumber - b.prNumber;
}

/** Admitted entries sorted by the pending key (see comparePending). */
export function sortedAdmitted(entries: readonly Entry[]): Entry[] {
  return entries.filter(isAdmitted).sort(comparePending);
}

/**
 * Admitted (PENDING and later), non-terminal entries in queue order: the pinned ones, then the rest
 * of `sorted` (the output of `sortedAdmitted`, which may be reused while only the pins change).
 */
export function admittedOrder(
  sorted: readonly Entry[],
  fixed: readonly number[],
  lookup: (prNumber: number) => Entry | undefined,
): Entry[] {
  const started: Entry[] = [];
  const placed = new Set<number>();
  for (const n of fixed) {
    const e = lookup(n);
    if (e && isAdmitted(e) && !placed.has(n)) {
      started.push(e);
      placed.add(n);
    }
  }
  return started.concat(sorted.filter((e) => !placed.has(e.prNumber)));
}

export function isAdmitted(e: Entry): boolean {
  return e.state !== 'NOT_READY' && !isTerminal(e.state);
}

/**
 * Non-terminal entries in queue order: what getQueue lists. NOT_READY entries are included at the
 * end unless `includeNotReady` is false.
 */
export function queueOrder(snapshot: QueueSnapshot, opts: { includeNotReady?: boolean } = {}): Entry[] {
  const byNumber = new Map(snapshot.entries.map((e) => [e.prNumber, e]));
  const admitted = admittedOrder(sortedAdmitted(snapshot.entries), readInternal(snapshot).order, (n) =>
    byNumber.get(n),
  );
  if (opts.includeNotReady === false) return admitted;
  const waiting = snapshot.entries.filter((e) => e.state === 'NOT_READY').sort(compareNotReady);
  return admitted.concat(waiting);
}
