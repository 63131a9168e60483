/** What the simulation keeps of a queue snapshot after each decision, as the service's store does (snapshot-io.ts). */
import { isTerminal, type Entry, type QueueSnapshot, type TestRun } from '../engine/index.js';

/** Drops terminal entries (`concluded` is told of each) and runs no longer needed. */
export function pruneSnapshot(s: QueueSnapshot, concluded: (entry: Entry) => void): QueueSnapshot {
  let entries = s.entries;
  if (entries.some((e) => isTerminal(e.state))) {
    entries = [];
    for (const e of s.entries) {
      if (isTerminal(e.state)) concluded(e);
      else entries.push(e);
    }
  }
  const referenced = new Set<string>();
  for (const e of entries) {
    if (e.runId) referenced.add(e.runId);
    if (e.verifiedByTestRun) referenced.add(e.verifiedByTestRun);
  }
  const needed = (r: TestRun): boolean => r.status === 'creating' || r.status === 'in_progress' || referenced.has(r.id);
  const runs = s.runs.every(needed) ? s.runs : s.runs.filter(needed);
  return entries === s.entries && runs === s.runs ? s : { ...s, entries, runs };
}
