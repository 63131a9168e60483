/** Test runs as the API shows them (contract §2.7). */
import type { Kysely } from 'kysely';
import type { ImpactedTargets, TestRun } from '../../engine/types.js';
import { ServiceError } from '../../lib/errors.js';
import type { CiStatus } from '../../forge/port.js';
import type { RepoSite } from '../../forge/links.js';
import type { Database, QueueRow, RepoRow, TestRunRow } from '../../store/database.js';
import { listCiStatuses } from '../../store/ci-statuses.js';
import { findEntry } from '../../store/entries.js';
import { findImpactedTargets } from '../../store/impacted-targets.js';
import { findRunRow, runOf } from '../../store/test-runs.js';
import { resolveRequiredStatuses } from '../repo-binding.js';
import { queueConfigOf } from '../executor/snapshot-io.js';

/** A test run as getTestingDetails shows it. */
export interface TestRunView {
  run: TestRun;
  /** Where the repository's PRs are shown on its forge. */
  site: RepoSite;
  requiredStatuses: string[];
  requiredStatusesSource: 'trunk_config' | 'repo_provider_branch_protection' | 'merge_instance';
  statuses: CiStatus[];
  testedPullRequests: { prNumber: number; title: string }[];
  impactedTargets: string[] | null;
  impactedTargetsForTestedPrs: string[] | null;
}

/** The run, when it belongs to the queue (the caller's, resolved by the service); 404 otherwise. */
export async function runOfQueue(
  db: Kysely<Database>,
  { repo, queue }: { repo: RepoRow; queue: QueueRow },
  runId: string,
): Promise<{ repo: RepoRow; queue: QueueRow; row: TestRunRow }> {
  const row = await findRunRow(db, runId);
  if (!row || row.queue_id !== queue.id) throw new ServiceError('TEST_RUN_NOT_FOUND', runId);
  return { repo, queue, row };
}

/** Union of uploaded targets; null when none was uploaded; `ALL` anywhere makes the union ["ALL"]. */
function unionTargets(all: (ImpactedTargets | null)[]): string[] | null {
  const known = all.filter((t): t is ImpactedTargets => t !== null);
  if (known.length === 0) return null;
  if (known.some((t) => t === 'ALL')) return ['ALL'];
  return [...new Set(known.flatMap((t) => t as readonly string[]))];
}

export async function testingDetails(
  db: Kysely<Database>,
  target: { repo: RepoRow; queue: QueueRow },
  runId: string,
): Promise<TestRunView> {
  const { repo, queue, row } = await runOfQueue(db, target, runId);
  const run = runOf(row);
  // Fixed when CI started; before that, what would be required now.
  const resolved =
    row.required_statuses !== null
      ? {
          statuses: JSON.parse(row.required_statuses) as string[],
          source: row.required_statuses_source as TestRunView['requiredStatusesSource'],
        }
      : resolveRequiredStatuses(queueConfigOf(queue).requiredStatuses, repo);
  const statuses = (await listCiStatuses(db, run.id)).map(
    (s): CiStatus => ({
      context: s.context,
      state: s.state as CiStatus['state'],
      ...(s.url !== null ? { url: s.url } : {}),
      ...(s.description !== null ? { description: s.description } : {}),
    }),
  );
  const tested = new Set(run.prNumbers);
  const targetsOf = async (prs: typeof run.prs) =>
    unionTargets(await Promise.all(prs.map((p) => findImpactedTargets(db, repo.id, p.number, p.headSha))));
  return {
    run,
    site: repo,
    requiredStatuses: resolved?.statuses ?? [],
    // contract §2.7: v1 reports trunk_config when the source is unknown.
    requiredStatusesSource: resolved?.source ?? 'trunk_config',
    statuses,
    testedPullRequests: await Promise.all(
      run.prNumbers.map(async (n) => ({
        prNumber: n,
        title: (await findEntry(db, queue.id, n))?.title ?? '',
      })),
    ),
    impactedTargets: await targetsOf(run.prs),
    impactedTargetsForTestedPrs: await targetsOf(run.prs.filter((p) => tested.has(p.number))),
  };
}
