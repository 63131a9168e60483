/**
 * The data of the web dashboard's extension endpoints: the organization's queues at a glance, one
 * queue's live activity (PRs in queue order, the test runs in flight and what each includes, lanes in
 * parallel mode) and its history by hour (conclusions, time in queue, CI runs per merge). Read from
 * the store and the executor's snapshot; nothing here changes a queue.
 */
import type { Kysely } from 'kysely';
import { laneHeads, queueOrder, type PrOutlook } from '../../engine/index.js';
import {
  PrState,
  TERMINAL_STATES,
  type Entry,
  type QueueConfig,
  type QueueSnapshot,
  type TestRun,
} from '../../engine/types.js';
import { ServiceError } from '../../lib/errors.js';
import { percentile } from '../../lib/percentile.js';
import { HOUR_MS } from '../../lib/time.js';
import { countTransitionsInto, listLatestEntriesInStates } from '../../store/queue-activity.js';
import type { RepoSite } from '../../forge/links.js';
import type { Database, QueueRow, RepoRow } from '../../store/database.js';
import { listEntriesInStates } from '../../store/metrics-entries.js';
import { listRunsOfWindow } from '../../store/metrics-runs.js';
import { listTransitionsOfRecentPrs } from '../../store/metrics-transitions.js';
import { listQueuesOfRepos } from '../../store/queues.js';
import type { QueueExecutor } from '../executor/queue-executor.js';
import { outlookOf } from '../executor/pr-outlook.js';
import { queueConfigOf } from '../executor/snapshot-io.js';

/** The longest history getQueueHistory answers: a week of hours. */
export const MAX_HISTORY_HOURS = 168;
/** How many concluded PRs getQueueActivity lists. */
export const RECENT_LIMIT = 20;

const ACTIVE_STATES = Object.values(PrState).filter((s) => !TERMINAL_STATES.includes(s));
const IN_FLIGHT: readonly TestRun['status'][] = ['creating', 'in_progress'];

/** Whether Terraform manages a queue's config, and since when it was changed outside Terraform. */
export interface QueueManagement {
  /** 'terraform' once Terraform (or OpenTofu) wrote the config; null: no Terraform write yet. */
  managedBy: 'terraform' | null;
  /** When a write from outside Terraform first followed the last Terraform write; null: none since. */
  driftSince: number | null;
}

export interface QueueSummary {
  repo: { host: string; owner: string; name: string };
  targetBranch: string;
  state: string;
  mode: QueueConfig['mode'];
  concurrency: number;
  batch: boolean;
  /** PRs in the queue except NOT_READY ones. */
  depth: number;
  notReady: number;
  testing: number;
  /** Conclusions in the last hour: throughput is `merged`. */
  mergedLastHour: number;
  failedLastHour: number;
  management: QueueManagement;
}

const managementOf = (q: QueueRow): QueueManagement => ({ managedBy: q.managed_by, driftSince: q.drift_since });

/** The queues of the repositories (the caller's), sorted by repository and branch. Four queries whatever their number. */
export async function listQueueSummaries(db: Kysely<Database>, repos: RepoRow[], now: number): Promise<QueueSummary[]> {
  const repoById = new Map(repos.map((r) => [r.id, r]));
  const queues = await listQueuesOfRepos(
    db,
    repos.map((r) => r.id),
  );
  const ids = queues.map((q) => q.id);
  const [entries, counts] = await Promise.all([
    listEntriesInStates(db, ids, ACTIVE_STATES),
    countTransitionsInto(db, ids, [PrState.MERGED, PrState.FAILED], now - HOUR_MS),
  ]);
  const out = queues.map((q): QueueSummary => {
    const repo = repoById.get(q.repo_id)!;
    const config = queueConfigOf(q);
    const mine = entries.filter((e) => e.queueId === q.id).map((e) => e.entry.state);
    const count = (state: string) => counts.find((c) => c.queueId === q.id && c.state === state)?.count ?? 0;
    return {
      repo: { host: repo.host, owner: repo.owner, name: repo.name },
      targetBranch: q.target_branch,
      state: q.state,
      mode: config.mode,
      concurrency: config.concurrency,
      batch: config.batch,
      depth: mine.filter((s) => s !== PrState.NOT_READY).length,
      notReady: mine.filter((s) => s === PrState.NOT_READY).length,
      testing: mine.filter((s) => s === PrState.TESTING).length,
      mergedLastHour: count(PrState.MERGED),
      failedLastHour: count(PrState.FAILED),
      management: managementOf(q),
    };
  });
  const name = (s: QueueSummary) => `${s.repo.host}/${s.repo.owner}/${s.repo.name}\u0000${s.targetBranch}`;
  return out.sort((a, b) => name(a).localeCompare(name(b)));
}

export interface ActivityPr {
  entry: Entry;
  /** In parallel mode, the PR number heading the entry's lane; null otherwise or while NOT_READY. */
  lane: number | null;
  /** Position, what it waits on, estimated merge time (pr-outlook.ts). */
  outlook: PrOutlook | null;
}

export interface QueueActivity {
  snapshot: QueueSnapshot;
  /** When it was read: what the queue's freezes are judged at. */
  at: number;
  management: QueueManagement;
  /** Non-terminal entries in queue order (NOT_READY last). */
  pullRequests: ActivityPr[];
  /** Runs creating their test commit or testing it, in queue order, with their lane in parallel mode. */
  testRuns: { run: TestRun; lane: number | null }[];
  /** The latest concluded PRs, most recent first. */
  recent: Entry[];
  /** Where the repository's PRs and commits are shown on its forge. */
  site: RepoSite;
}

/** One queue as the live view draws it. */
export async function queueActivity(
  db: Kysely<Database>,
  executor: QueueExecutor,
  { repo, queue }: { repo: RepoRow; queue: QueueRow },
  now: number,
): Promise<QueueActivity> {
  const [snapshot, recent] = await Promise.all([
    executor.read(queue.id, queue.version),
    listLatestEntriesInStates(db, queue.id, TERMINAL_STATES, RECENT_LIMIT),
  ]);
  const outlook = await outlookOf(db, queue.id, snapshot, now);
  const ordered = queueOrder(snapshot);
  const admitted = ordered.filter((e) => e.state !== PrState.NOT_READY);
  const parallel = snapshot.config.mode === 'parallel';
  const heads = parallel ? laneHeads(admitted) : [];
  const laneOf = new Map(admitted.map((e, i) => [e.prNumber, heads[i] ?? null]));
  // Runs in the order of their first tested PR in the queue: the order they would merge in.
  const position = new Map(ordered.map((e, i) => [e.prNumber, i]));
  const at = (r: TestRun) => position.get(r.prNumbers[0] ?? -1) ?? Number.MAX_SAFE_INTEGER;
  const runs = snapshot.runs
    .filter((r) => IN_FLIGHT.includes(r.status))
    .sort((a, b) => at(a) - at(b) || a.createdAt - b.createdAt);
  return {
    snapshot,
    at: now,
    management: managementOf(queue),
    pullRequests: ordered.map((entry) => ({
      entry,
      lane: laneOf.get(entry.prNumber) ?? null,
      outlook: outlook.get(entry.prNumber) ?? null,
    })),
    testRuns: runs.map((run) => ({ run, lane: parallel ? (laneOf.get(run.prNumbers[0] ?? -1) ?? null) : null })),
    recent,
    site: repo,
  };
}

export interface HourBucket {
  /** Start of the hour (ms). */
  start: number;
  merged: number;
  failed: number;
  cancelled: number;
  /** Time in queue (admission to conclusion) of the PRs that concluded in the hour, seconds. */
  timeInQueueP50: number | null;
  timeInQueueP95: number | null;
  /** Test runs started in the hour (main and bisection) that reached CI and have finished. */
  ciRuns: number;
  ciRunsPerMerge: number | null;
}

export interface QueueHistory {
  hours: HourBucket[];
  total: Omit<HourBucket, 'start'>;
}

interface Tally {
  merged: number;
  failed: number;
  cancelled: number;
  times: number[];
  ciRuns: number;
}

const emptyTally = (): Tally => ({ merged: 0, failed: 0, cancelled: 0, times: [], ciRuns: 0 });

function bucketOf(t: Tally): Omit<HourBucket, 'start'> {
  const times = [...t.times].sort((a, b) => a - b);
  const round = (n: number | null) => (n === null ? null : Math.round(n * 10) / 10);
  return {
    merged: t.merged,
    failed: t.failed,
    cancelled: t.cancelled,
    timeInQueueP50: round(percentile(times, 50)),
    timeInQueueP95: round(percentile(times, 95)),
    ciRuns: t.ciRuns,
    ciRunsPerMerge: t.merged === 0 ? null : Math.round((t.ciRuns / t.merged) * 100) / 100,
  };
}

/**
 * The queue's last `hours` clock hours, the current one included, oldest first. A PR's time in queue
 * runs from its admission (its trip's first PENDING) to its conclusion, as the metrics measure it.
 */
export async function queueHistory(
  db: Kysely<Database>,
  queue: QueueRow,
  hours: number,
  now: number,
): Promise<QueueHistory> {
  if (!Number.isInteger(hours) || hours < 1 || hours > MAX_HISTORY_HOURS) {
    throw new ServiceError('VALIDATION_FAILED', `hours must be an integer from 1 to ${MAX_HISTORY_HOURS}`);
  }
  const start = Math.floor(now / HOUR_MS) * HOUR_MS - (hours - 1) * HOUR_MS;
  const [transitions, runs] = await Promise.all([
    listTransitionsOfRecentPrs(db, [queue.id], start - 1),
    listRunsOfWindow(db, [queue.id], start - 1, IN_FLIGHT),
  ]);
  const tallies = Array.from({ length: hours }, emptyTally);
  const total = emptyTally();
  const tallyAt = (at: number): Tally | undefined =>
    at >= start ? tallies[Math.floor((at - start) / HOUR_MS)] : undefined;

  // Rows come ordered by PR and time: walk each PR's trips.
  let pr: number | null = null;
  let admittedAt: number | null = null;
  for (const t of transitions) {
    if (t.prNumber !== pr) {
      pr = t.prNumber;
      admittedAt = null;
    }
    if (t.to === PrState.NOT_READY) admittedAt = null;
    else if (t.to === PrState.PENDING) admittedAt ??= t.at;
    else if (t.to === PrState.MERGED || t.to === PrState.FAILED || t.to === PrState.CANCELLED) {
      const tally = tallyAt(t.at);
      if (tally) {
        for (const x of [tally, total]) {
          if (t.to === PrState.MERGED) x.merged++;
          else if (t.to === PrState.FAILED) x.failed++;
          else x.cancelled++;
          if (admittedAt !== null) x.times.push((t.at - admittedAt) / 1000);
        }
      }
      admittedAt = null;
    }
  }
  // Only runs that finished after reaching CI count: a run in flight may still be cancelled and
  // restarted, and a run whose test commit was never built (a merge conflict) ran no CI.
  for (const { run } of runs.filter((r) => !IN_FLIGHT.includes(r.run.status) && r.run.testSha !== null)) {
    const tally = tallyAt(run.createdAt);
    if (tally) {
      tally.ciRuns++;
      total.ciRuns++;
    }
  }
  return {
    hours: tallies.map((t, i) => ({ start: start + i * HOUR_MS, ...bucketOf(t) })),
    total: bucketOf(total),
  };
}
