/**
 * Reading a queue snapshot from the store and writing a decision back. Writes are by object identity:
 * the engine returns new objects only for the entries and runs it changed (engine/types.ts).
 */
import type { Transaction } from 'kysely';
import {
  TERMINAL_STATES,
  isTerminal,
  type Effect,
  type Entry,
  type QueueConfig,
  type QueueSnapshot,
  type QueueState,
  type TestRun,
} from '../../engine/types.js';
import { recordPullRequestIds } from '../../store/api-ids.js';
import type { Database, NewTransition, QueueRow, RepoRow } from '../../store/database.js';
import { insertEffects } from '../../store/effects.js';
import { findEntry, listActiveEntries, upsertEntries } from '../../store/entries.js';
import { updateQueueRow } from '../../store/queues.js';
import { listRunsForSnapshot, upsertRuns } from '../../store/test-runs.js';
import { insertTransitions } from '../../store/transitions.js';
import { repoRefOf } from '../repo-binding.js';

const ACTIVE_RUN_STATUSES: readonly TestRun['status'][] = ['creating', 'in_progress'];

/** The queue's settings, as its row stores them (JSON). */
export const queueConfigOf = (queue: QueueRow): QueueConfig => JSON.parse(queue.config) as QueueConfig;

export async function loadSnapshot(trx: Transaction<Database>, queue: QueueRow, repo: RepoRow): Promise<QueueSnapshot> {
  const entries = await listActiveEntries(trx, queue.id, TERMINAL_STATES);
  const runIds = entries.flatMap((e) => (e.runId ? [e.runId] : []));
  const runs = await listRunsForSnapshot(trx, queue.id, ACTIVE_RUN_STATUSES, runIds);
  return {
    repo: repoRefOf(repo),
    targetBranch: queue.target_branch,
    testBranchPrefix: repo.test_branch_prefix,
    state: queue.state as QueueState,
    config: queueConfigOf(queue),
    targetSha: queue.target_sha,
    entries,
    runs,
    internal: JSON.parse(queue.internal) as Record<string, unknown>,
  };
}

/** Adds the PR's terminal entry (its previous trip) so that a resubmission continues it. */
export async function withPreviousTrip(
  trx: Transaction<Database>,
  queueId: string,
  s: QueueSnapshot,
  prNumber: number,
): Promise<QueueSnapshot> {
  if (s.entries.some((e) => e.prNumber === prNumber)) return s;
  const previous = await findEntry(trx, queueId, prNumber);
  return previous ? { ...s, entries: [...s.entries, previous] } : s;
}

/** What a later load would return: non-terminal entries and the runs they or the engine still need. */
export function pruneSnapshot(s: QueueSnapshot): QueueSnapshot {
  const entries = s.entries.some((e) => isTerminal(e.state))
    ? s.entries.filter((e) => !isTerminal(e.state))
    : s.entries;
  const active = (r: TestRun) => ACTIVE_RUN_STATUSES.includes(r.status);
  if (entries === s.entries && s.runs.every(active)) return s;
  const referenced = new Set(entries.flatMap((e) => (e.runId ? [e.runId] : [])));
  const runs = s.runs.filter((r) => active(r) || referenced.has(r.id));
  return { ...s, entries, runs };
}

/**
 * The items of `after` that are not in `before`, by identity, each with the item it replaced (same
 * key) if any. The engine keeps unchanged items where they were and puts a changed one in the place
 * of the one it replaces, so most are matched by position; only a shifted list needs a search.
 */
function changed<T>(
  before: readonly T[],
  after: readonly T[],
  keyOf: (t: T) => string | number,
): { item: T; was: T | undefined }[] {
  let old: Set<T> | null = null;
  let byKey: Map<string | number, T> | null = null;
  const out: { item: T; was: T | undefined }[] = [];
  after.forEach((item, i) => {
    const there = before[i];
    if (there === item) return;
    // Keys are unique: an item with the key of the one it stands in place of is not elsewhere in `before`.
    if (there !== undefined && keyOf(there) === keyOf(item)) {
      out.push({ item, was: there });
      return;
    }
    old ??= new Set(before);
    if (old.has(item)) return;
    byKey ??= new Map(before.map((b) => [keyOf(b), b]));
    out.push({ item, was: byKey.get(keyOf(item)) });
  });
  return out;
}

function newTransitions(queueId: string, before: Entry | undefined, after: Entry): NewTransition[] {
  const known = before ? before.timeline.length : 0;
  return after.timeline.slice(known).map((t) => ({
    queue_id: queueId,
    pr_number: after.prNumber,
    from_state: t.from,
    to_state: t.to,
    reason: t.reason,
    run_id: t.runId ?? null,
    at: t.at,
  }));
}

/**
 * Writes everything a decision changed — entries, runs, the queue row, transitions and the effects
 * (outbox) — inside the caller's transaction. Returns the queue's new version and the transitions;
 * a decision that changed nothing writes nothing and keeps the version.
 */
export async function writeDecision(
  trx: Transaction<Database>,
  queue: QueueRow,
  before: QueueSnapshot,
  after: QueueSnapshot,
  effects: Effect[],
  now: number,
): Promise<{ version: number; transitions: NewTransition[] }> {
  const entries = changed(before.entries, after.entries, (e) => e.prNumber);
  const runs = changed(before.runs, after.runs, (r) => r.id);
  const config = after.config === before.config ? queue.config : JSON.stringify(after.config);
  const internal = JSON.stringify(after.internal);
  if (
    entries.length === 0 &&
    runs.length === 0 &&
    effects.length === 0 &&
    after.state === queue.state &&
    after.targetSha === queue.target_sha &&
    config === queue.config &&
    internal === queue.internal
  ) {
    return { version: queue.version, transitions: [] };
  }
  await upsertEntries(
    trx,
    queue.id,
    entries.map((c) => c.item),
  );
  // A PR's v2 id is given out when it first enters a queue (or when the v2 API first names it).
  const admitted = entries.filter((c) => c.was === undefined).map((c) => c.item.prNumber);
  if (admitted.length > 0) await recordPullRequestIds(trx, queue.repo_id, admitted, now);
  await upsertRuns(
    trx,
    queue.id,
    runs.map((c) => c.item),
  );
  const transitions = entries.flatMap((c) => newTransitions(queue.id, c.was, c.item));
  await insertTransitions(trx, transitions);
  await insertEffects(
    trx,
    queue.id,
    effects.map((effect) => ({
      effect,
      runAt: effect.kind === 'scheduleWakeup' ? effect.at : now,
    })),
    now,
  );
  const version = queue.version + 1;
  await updateQueueRow(trx, queue.id, {
    state: after.state,
    config,
    target_sha: after.targetSha,
    internal,
    version,
    updated_at: now,
  });
  return { version, transitions };
}
