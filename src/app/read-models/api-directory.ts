/**
 * What the v2 API addresses by id: queues by short id, repositories and pull requests by UUID
 * (store/api-ids.ts), test runs by their id. Whose they are is the service's to judge
 * (service/directory.ts: within the caller's organization, among the repositories its token may act
 * on). It answers views (RepositoryView, QueueView, QueueRun), never the store's rows: the API reads
 * what they say and hands a write the queue's `target` as it got it.
 */
import type { Kysely } from 'kysely';
import { readiness } from '../../engine/index.js';
import {
  type Entry,
  isTerminal,
  type PrInfo,
  type PrState,
  type QueueConfig,
  type TestRun,
} from '../../engine/types.js';
import type { Clock } from '../../lib/clock.js';
import type { RepoSite } from '../../forge/links.js';
import {
  deleteQueueShortId,
  findPullRequestCoordinates,
  queueShortIdOf,
  recordPullRequestId,
  recordPullRequestIds,
  recordQueueShortIds,
} from '../../store/api-ids.js';
import { findQueueByShortId, findLatestEntryOfPr, listRunsPage, type RunPageQuery } from '../../store/api-reads.js';
import type { Database, QueueRow, RepoRow } from '../../store/database.js';
import { findQueue, findQueueById, listQueuesOfRepos } from '../../store/queues.js';
import { findRepoById } from '../../store/repos.js';
import { findEntry } from '../../store/entries.js';
import { findRunRow, runOf } from '../../store/test-runs.js';
import { forgeFor, type Adapters } from '../adapters.js';
import { configOfRow } from './queue-config.js';
import { bindingOf, repoRefOf } from '../repo-binding.js';
import type { QueueKey, ResolvedQueue } from '../request-scope.js';
import type { PrView } from './pr-view.js';

/** A connected repository: what the API shows of it and builds its web addresses from. */
export interface RepositoryView extends RepoSite {
  id: string;
  createdAt: number;
}

/** A queue: what the API shows of it besides its snapshot. */
export interface QueueView {
  id: string;
  targetBranch: string;
  /** 'terraform' once a config write came from Terraform or OpenTofu; null: not managed. */
  managedBy: 'terraform' | null;
  /** When a config write from outside Terraform first followed the last Terraform write; null: no drift. */
  driftSince: number | null;
  createdAt: number;
  updatedAt: number;
}

/** A test run with the queue it ran in. */
export interface QueueRun {
  queueId: string;
  run: TestRun;
}

/** One pull request's stretch of testing in one finished run. */
export interface TestingResult {
  prNumber: number;
  endedAt: number;
  /** Whole seconds, in ms. */
  durationMs: number;
  outcome: 'passed' | 'failed' | 'cancelled';
  /** The state its entry concluded in, while the entry is concluded; null while it is in the queue. */
  conclusion: PrState | null;
  isBisection: boolean;
  /** The run tested a batch and failed: the batch was split to find the culprit. */
  startedBisection: boolean;
  runId: string;
}

const OUTCOME = { succeeded: 'passed', failed: 'failed', cancelled: 'cancelled' } as const;

/** An entry with what the v2 wire says of it. */
export interface EntryView {
  view: Pick<PrView, 'entry' | 'readiness' | 'isCurrentlySubmittedToQueue'>;
  queueShortId: string;
  key: QueueKey;
}

/** A PR's entry as a write left it, with its queue's config: what the write committed, not read again. */
export interface WrittenEntry {
  queueId: string;
  targetBranch: string;
  config: Readonly<QueueConfig>;
  entry: Entry;
}

/** A PR's most recent entry as a lookup read it, with what a write to its queue needs. */
export interface LatestEntry extends WrittenEntry {
  /** Hand it to a write on the queue: the queue as read, not looked up again. */
  target: ResolvedQueue;
}

export interface QueueHandle {
  shortId: string;
  queue: QueueView;
  repo: RepositoryView;
  key: QueueKey;
  /** Hand it to a write on the queue: the queue as read, not looked up again. */
  target: ResolvedQueue;
}

export interface PullRequestHandle {
  id: string;
  repo: RepositoryView;
  number: number;
  /** When the id was first given out. */
  createdAt: number;
  /** Its most recently submitted entry, as the lookup read it; absent when it was never submitted. */
  latest?: LatestEntry;
}

/** Ids and rows kept per map; past this many, the kept ones are dropped and read again. */
const KEPT = 100_000;

export class ApiDirectory {
  /** Pull request ids → their repository, number and first mention: immutable once given out. */
  private readonly named = new Map<string, { repoId: string; prNumber: number; createdAt: number }>();
  /** Repository rows by id: never updated once written. */
  private readonly repoRows = new Map<string, RepoRow>();

  constructor(private readonly deps: { db: Kysely<Database>; clock: Clock; adapters: Adapters }) {}

  /** The queues of the repositories (of one repository, one branch), oldest first. */
  async queues(
    of: readonly RepoRow[],
    filter: { repoId?: string; targetBranch?: string } = {},
  ): Promise<QueueHandle[]> {
    const repos = of.filter((r) => filter.repoId === undefined || r.id === filter.repoId);
    const byId = new Map(repos.map((r) => [r.id, r]));
    const queues = (await listQueuesOfRepos(this.deps.db, [...byId.keys()]))
      .filter((q) => filter.targetBranch === undefined || q.target_branch === filter.targetBranch)
      .sort((a, b) => a.created_at - b.created_at || a.id.localeCompare(b.id));
    const shortIds = await recordQueueShortIds(
      this.deps.db,
      queues.map((q) => q.id),
    );
    return queues.map((queue) => handleOf(shortIds.get(queue.id)!, queue, byId.get(queue.repo_id)!));
  }

  async queue(shortId: string): Promise<QueueHandle | undefined> {
    const found = await findQueueByShortId(this.deps.db, shortId);
    return found && handleOf(shortId, found.queue, found.repo);
  }

  /** The queue of a repository's branch (after a create), with its short id recorded. */
  async queueOf(of: RepositoryView, targetBranch: string): Promise<QueueHandle | undefined> {
    const repo = await this.repoRow(of.id);
    const queue = repo && (await findQueue(this.deps.db, repo.id, targetBranch));
    if (!repo || !queue) return undefined;
    const shortIds = await recordQueueShortIds(this.deps.db, [queue.id]);
    return handleOf(shortIds.get(queue.id)!, queue, repo);
  }

  /** Forgets a deleted queue's short id. */
  forgetQueue(queueId: string): Promise<void> {
    return deleteQueueShortId(this.deps.db, queueId);
  }

  /** A repository's row by id (any letter case). */
  repo(id: string): Promise<RepoRow | undefined> {
    return findRepoById(this.deps.db, id.toLowerCase());
  }

  /** The ids of a repository's pull requests, given out (and recorded) on first mention. */
  pullRequestIds(repo: RepositoryView, numbers: readonly number[]): Promise<Map<number, string>> {
    return recordPullRequestIds(this.deps.db, repo.id, numbers, this.deps.clock.now());
  }

  /** A repository's pull request by number, its id given out (and recorded) on first mention. */
  async pullRequestOf(repo: RepositoryView, number: number): Promise<PullRequestHandle> {
    const { id, createdAt } = await recordPullRequestId(this.deps.db, repo.id, number, this.deps.clock.now());
    return { id, repo, number, createdAt };
  }

  /**
   * A pull request by its v2 id, with its most recent entry as committed now: one query. What the id
   * names (repository and number) and the repository's row are kept once read: neither changes (a
   * repository is never updated, and the query answers nothing once it is deleted).
   */
  async pullRequest(id: string): Promise<{ orgId: string; repo: RepoRow; handle: PullRequestHandle } | undefined> {
    const key = id.toLowerCase();
    const named = await this.kept(this.named, key, () => findPullRequestCoordinates(this.deps.db, key));
    if (!named) return undefined;
    const found = await findLatestEntryOfPr(this.deps.db, named.repoId, named.prNumber);
    const repo = found && (await this.repoRow(named.repoId));
    if (!found || !repo) return undefined;
    const latest = found.latest;
    const handle: PullRequestHandle = {
      id: key,
      repo: repositoryView(repo),
      number: named.prNumber,
      createdAt: named.createdAt,
      ...(latest
        ? {
            latest: {
              queueId: latest.queueId,
              targetBranch: latest.targetBranch,
              config: configOfRow({ id: latest.queueId, config: latest.config }),
              entry: latest.entry,
              target: { repo, queue: latest.queue },
            },
          }
        : {}),
    };
    return { orgId: found.orgId, repo, handle };
  }

  /** A repository's row, kept once read: a repository is never updated. */
  private repoRow(id: string): Promise<RepoRow | undefined> {
    return this.kept(this.repoRows, id, () => findRepoById(this.deps.db, id));
  }

  /** What `map` keeps for `key`, read (and kept) when it holds nothing. */
  private async kept<T>(map: Map<string, T>, key: string, read: () => Promise<T | undefined>): Promise<T | undefined> {
    const known = map.get(key);
    if (known !== undefined) return known;
    const value = await read();
    if (value === undefined) return undefined;
    if (map.size >= KEPT) map.clear();
    map.set(key, value);
    return value;
  }

  /** The pull request as its forge reports it now; null when the forge does not know it (or the repository is gone). */
  async forgePullRequest(of: RepositoryView, number: number): Promise<PrInfo | null> {
    const repo = await this.repoRow(of.id);
    if (!repo) return null;
    const binding = bindingOf(repo);
    return forgeFor(this.deps.adapters, binding).getPullRequest(binding, number);
  }

  /** The pull request's entry in a queue (of any state), if it was ever submitted to it. */
  entryIn(queueId: string, number: number): Promise<Entry | undefined> {
    return findEntry(this.deps.db, queueId, number);
  }

  /** A test run and its queue. */
  async run(runId: string): Promise<{ handle: QueueHandle; run: TestRun } | undefined> {
    const row = await findRunRow(this.deps.db, runId);
    const queue = row && (await findQueueById(this.deps.db, row.queue_id));
    const repo = queue && (await findRepoById(this.deps.db, queue.repo_id));
    if (!row || !queue || !repo) return undefined;
    const shortIds = await recordQueueShortIds(this.deps.db, [queue.id]);
    return { handle: handleOf(shortIds.get(queue.id)!, queue, repo), run: runOf(row) };
  }

  /** A page of the queues' runs, newest first (ties: highest id first). */
  async runs(query: RunPageQuery): Promise<QueueRun[]> {
    return (await listRunsPage(this.deps.db, query)).map((row) => ({ queueId: row.queue_id, run: runOf(row) }));
  }

  /** The service's time (ms): what "now" means for a read's default window. */
  now(): number {
    return this.deps.clock.now();
  }

  /** Testing results of a queue's runs that finished within [since, until], newest first. */
  async testingResults(queueId: string, since: number, until: number): Promise<TestingResult[]> {
    const rows = await listRunsPage(this.deps.db, {
      queueIds: [queueId],
      statuses: Object.keys(OUTCOME),
      limit: 1_000_000,
    });
    const runs = rows
      .map(runOf)
      .filter((r) => r.finishedAt !== null && r.finishedAt >= since && r.finishedAt <= until)
      .sort((a, b) => b.finishedAt! - a.finishedAt! || b.id.localeCompare(a.id));
    const conclusions = new Map<number, PrState | null>();
    for (const n of new Set(runs.flatMap((r) => r.prNumbers))) {
      const entry = await findEntry(this.deps.db, queueId, n);
      conclusions.set(n, entry && isTerminal(entry.state) ? entry.state : null);
    }
    return runs.flatMap((run) =>
      run.prNumbers.map((prNumber) => ({
        prNumber,
        endedAt: run.finishedAt!,
        durationMs: Math.round((run.finishedAt! - run.createdAt) / 1000) * 1000,
        outcome: OUTCOME[run.status as keyof typeof OUTCOME],
        conclusion: conclusions.get(prNumber) ?? null,
        isBisection: run.queueType === 'bisection',
        startedBisection: run.status === 'failed' && run.prNumbers.length > 1,
        runId: run.id,
      })),
    );
  }
}

/** What the v2 wire says of an entry of a repository's queue. */
export function entryView(repo: RepositoryView, found: WrittenEntry): EntryView {
  return {
    view: {
      entry: found.entry,
      readiness: readiness({ targetBranch: found.targetBranch, config: found.config }, found.entry),
      isCurrentlySubmittedToQueue: !isTerminal(found.entry.state),
    },
    queueShortId: queueShortIdOf(found.queueId),
    key: { repo: repoRefOf(repo), targetBranch: found.targetBranch },
  };
}

export const repositoryView = (repo: RepoRow): RepositoryView => ({
  id: repo.id,
  forge: repo.forge,
  host: repo.host,
  owner: repo.owner,
  name: repo.name,
  pr_url_template: repo.pr_url_template,
  createdAt: repo.created_at,
});

const handleOf = (shortId: string, queue: QueueRow, repo: RepoRow): QueueHandle => ({
  shortId,
  queue: {
    id: queue.id,
    targetBranch: queue.target_branch,
    managedBy: queue.managed_by,
    driftSince: queue.drift_since,
    createdAt: queue.created_at,
    updatedAt: queue.updated_at,
  },
  repo: repositoryView(repo),
  key: { repo: repoRefOf(repo), targetBranch: queue.target_branch },
  target: { repo, queue },
});
