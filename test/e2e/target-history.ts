/**
 * The promise of a single-mode queue, checked on the real remote after the fact: every commit
 * greenline put on the target branch was tested green on the base it landed on.
 *
 * A test commit is a chain of merges (base, then each PR head merged in queue order: the run's
 * `dependentPrs`, then its `testedPullRequests`); with squash merges each PR becomes one target
 * commit. For the target commit C_k of PR N, verified by run R (`verifiedByTestRun`):
 *   - R succeeded, its required check reported SUCCESS, and the CI command really ran on R's test
 *     commit S and exited 0 (the CI record);
 *   - the chain step of S that merged N has C_k's tree, merged N's tested head, and its parent step
 *     has the tree of C_{k-1}: the content before and after N is exactly what CI tested;
 *   - S's base is a commit of the target branch, and the PRs the target received after it up to
 *     C_{k-1} are exactly the chain's PRs before N: the predicted base was the real one.
 * For a PR tested alone, the step is S itself. Inside a batch the intermediate commits are the chain's
 * intermediate states and the batch's last commit has S's tree.
 */
import type { CiRecord } from './ci-script.js';
import type { GitRemote } from './git-remote.js';
import type { QueueClient } from './queue-client.js';

export async function targetHistoryProblems(remote: GitRemote, queue: QueueClient, ci: CiRecord[]): Promise<string[]> {
  const problems: string[] = [];
  const target = [
    { sha: remote.initialSha, tree: await remote.tree(remote.initialSha), prNumber: null as number | null },
    ...(await remote.targetCommits(queue.targetBranch)),
  ];
  const position = new Map(target.map((c, i) => [c.sha, i]));
  for (let k = 1; k < target.length; k++) {
    const c = target[k]!;
    const n = c.prNumber;
    if (n === null) {
      problems.push(`target commit ${c.sha} is not the squash commit of a PR`);
      continue;
    }
    const entry = await queue.pr(n);
    if (entry.state !== 'MERGED' || !entry.verifiedByTestRun) {
      problems.push(`#${n} is on the target but is ${entry.state}, verified by ${entry.verifiedByTestRun}`);
      continue;
    }
    const run = await queue.details(entry.verifiedByTestRun);
    const tested: number[] = run.testedPullRequests.map((p: { prNumber: number }) => p.prNumber);
    const chain: number[] = [...run.dependentPrs, ...tested];
    const S: string = run.testBranchSha;
    const check = run.statusChecks.find((s: { context: string }) => s.context === 'greenline/ci');
    if (run.status !== 'succeeded' || check?.state !== 'SUCCESS') {
      problems.push(`#${n}: its run ${entry.verifiedByTestRun} is ${run.status} with greenline/ci ${check?.state}`);
    }
    if (!ci.some((r) => r.runId === entry.verifiedByTestRun && r.sha === S && r.exitCode === 0)) {
      problems.push(`#${n}: no record of the CI command passing on ${S} for run ${entry.verifiedByTestRun}`);
    }
    if (!tested.includes(n)) {
      problems.push(`#${n}: its run tested ${tested.join(', ')}, not #${n}`);
      continue;
    }
    const i = chain.indexOf(n);
    const step = `${S}~${chain.length - 1 - i}`;
    if ((await remote.tree(step)) !== c.tree) problems.push(`#${n}: target commit ${c.sha} has a tree CI did not test`);
    if ((await remote.tree(`${step}^1`)) !== target[k - 1]!.tree) {
      problems.push(`#${n}: the target before it (${target[k - 1]!.sha}) is not the content its test was built on`);
    }
    if ((await remote.sha(`${step}^2`)) !== entry.prSha)
      problems.push(`#${n}: the test merged ${await remote.sha(`${step}^2`)}, not its head ${entry.prSha}`);
    const base = position.get(await remote.sha(`${S}~${chain.length}`));
    const landedBetween = base === undefined ? null : target.slice(base + 1, k).map((t) => t.prNumber);
    if (base === undefined || base >= k || JSON.stringify(landedBetween) !== JSON.stringify(chain.slice(0, i))) {
      problems.push(
        `#${n}: its test assumed ${
          chain
            .slice(0, i)
            .map((p) => `#${p}`)
            .join(', ') || 'nothing'
        } ahead of it on a base of ` +
          `the target, but the target received ${landedBetween === null ? '(base not on the target)' : landedBetween.map((p) => `#${p}`).join(', ') || 'nothing'}`,
      );
    }
  }
  return problems;
}
