/**
 * GET /v1/getMergeQueueMetrics (contract §7): the metrics of an organization's queues, computed from
 * the store on every scrape so that every instance sharing the database answers the same numbers.
 * Five queries whatever the number of queues: repositories, queues, their non-terminal entries, their
 * recent and in-flight runs, their recent transitions. Families: src/metrics/queue-metrics.ts.
 */
import type { Kysely } from 'kysely';
import { TERMINAL_STATES, PrState, type Entry, type QueueState, type TestRun } from '../../engine/types.js';
import { HOUR_MS } from '../../lib/time.js';
import { reportQueue } from '../../metrics/report-queue.js';
import { newQueueMetrics } from '../../metrics/queue-metrics.js';
import type { Database } from '../../store/database.js';
import { listEntriesInStates } from '../../store/metrics-entries.js';
import { listRunsOfWindow } from '../../store/metrics-runs.js';
import { listTransitionsOfRecentPrs, type MetricsTransition } from '../../store/metrics-transitions.js';
import { listQueuesOfRepos } from '../../store/queues.js';
import { listRepos } from '../../store/repos.js';
import { queueConfigOf } from '../executor/snapshot-io.js';

const QUEUED_STATES = Object.values(PrState).filter((s) => !TERMINAL_STATES.includes(s));
const IN_FLIGHT: readonly TestRun['status'][] = ['creating', 'in_progress'];

function groupBy<T>(items: readonly T[], key: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const list = out.get(key(item));
    if (list) list.push(item);
    else out.set(key(item), [item]);
  }
  return out;
}

/** The exposition text of the org's queues (all, or those of `repoIds`) at time `now`. */
export async function renderMetrics(
  db: Kysely<Database>,
  opts: { orgId: string; repoIds?: string[]; now: number },
): Promise<string> {
  const m = newQueueMetrics();
  const repos = (await listRepos(db, opts.orgId)).filter((r) => !opts.repoIds || opts.repoIds.includes(r.id));
  const repoById = new Map(repos.map((r) => [r.id, r]));
  const queues = await listQueuesOfRepos(
    db,
    repos.map((r) => r.id),
  );
  const queueIds = queues.map((q) => q.id);
  // The window is the last hour, (now − 1 h, now].
  const after = opts.now - HOUR_MS;
  const [entries, runs, transitions] = await Promise.all([
    listEntriesInStates(db, queueIds, QUEUED_STATES),
    listRunsOfWindow(db, queueIds, after, IN_FLIGHT),
    listTransitionsOfRecentPrs(db, queueIds, after),
  ]);
  const entriesOf = groupBy(entries, (e) => e.queueId);
  const runsOf = groupBy(runs, (r) => r.queueId);
  const transitionsOf = groupBy(transitions, (t) => t.queueId);
  for (const q of queues) {
    const repo = repoById.get(q.repo_id)!;
    reportQueue(
      m,
      {
        repo: `${repo.owner}/${repo.name}`,
        snapshot: {
          repo: { host: repo.host, owner: repo.owner, name: repo.name },
          targetBranch: q.target_branch,
          testBranchPrefix: repo.test_branch_prefix,
          state: q.state as QueueState,
          config: queueConfigOf(q),
          targetSha: q.target_sha,
          entries: (entriesOf.get(q.id) ?? []).map((e): Entry => e.entry),
          runs: [],
          internal: JSON.parse(q.internal) as Record<string, unknown>,
        },
        runs: (runsOf.get(q.id) ?? []).map((r) => r.run),
        transitions: transitionsOf.get(q.id) ?? ([] as MetricsTransition[]),
      },
      after,
    );
  }
  return m.registry.metrics();
}
