/**
 * What a test run tests against and what changed (the engine's RunChanges), read from the forge once
 * the run's test commit is built: its base is the commit after the PRs ahead of its own were merged
 * (the target head when there are none), its files those between that base and the test commit, and
 * each tested PR's files those of its head against its merge base with the target head.
 */
import type { RunChanges, TestRun } from '../../engine/types.js';
import type { ForgePort, RepoBinding } from '../../forge/port.js';

/**
 * The run's changes, or undefined when the forge cannot compare commits (or list every path of a
 * comparison), or did not tell the steps of a test commit built on PRs ahead of the run's own.
 */
export async function runChanges(
  forge: ForgePort,
  binding: RepoBinding,
  run: Pick<TestRun, 'baseSha' | 'prs' | 'prNumbers' | 'dependentPrs'>,
  built: { sha: string; steps?: string[] },
): Promise<RunChanges | undefined> {
  const changedFiles = forge.changedFiles?.bind(forge);
  if (!changedFiles) return undefined;
  const ahead = run.dependentPrs.length;
  const baseSha = ahead === 0 ? run.baseSha : built.steps?.[ahead - 1];
  if (baseSha === undefined) return undefined;
  const compare = (from: string, to: string) => changedFiles(binding, { from, to });
  const tested = run.prs.filter((p) => run.prNumbers.includes(p.number));
  const [files, ...perPr] = await Promise.all([
    compare(baseSha, built.sha),
    ...tested.map((p) => compare(run.baseSha, p.headSha)),
  ]);
  if (!files || perPr.some((f) => f === null)) return undefined;
  return { baseSha, files, prs: tested.map((p, i) => ({ number: p.number, files: perPr[i]! })) };
}
