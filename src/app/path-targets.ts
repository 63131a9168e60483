/**
 * Impacted targets from paths (the queue setting `impactedTargetsFromPaths`): a PR impacts each
 * target one of whose globs one of its changed paths matches (minimatch, `dot` on: `web/**` matches
 * `web/.eslintrc`); a PR whose paths match no glob, or whose paths are not known, gets the fallback.
 * The words say why, for the PR's outlook.
 */
import { isDeepStrictEqual } from 'node:util';
import { minimatch } from 'minimatch';
import type { ImpactedTargets, PathTargets } from '../engine/types.js';

export function targetsOfPaths(
  setting: PathTargets,
  files: readonly string[] | null,
): { targets: ImpactedTargets; why: string } {
  const fallback = (because: string): { targets: ImpactedTargets; why: string } => {
    const targets: ImpactedTargets = setting.fallback ?? 'ALL';
    const what = targets === 'ALL' ? 'every target' : targets.join(', ') || 'no target';
    return { targets, why: `${because}: its fallback, ${what}` };
  };
  if (files === null) return fallback('its changed paths are not known to impactedTargetsFromPaths');
  const touched = Object.entries(setting.targets).flatMap(([target, globs]) => {
    const hit = globs.filter((glob) => files.some((file) => minimatch(file, glob, { dot: true })));
    return hit.length > 0 ? [{ target, hit }] : [];
  });
  if (touched.length === 0) return fallback('its paths match no glob of impactedTargetsFromPaths');
  return {
    targets: touched.map((t) => t.target),
    why: `touches ${touched.map((t) => `${t.hit.join(', ')} (${t.target})`).join('; ')}`,
  };
}

/**
 * What a write of the setting means, in words, or null when it did not change it: the setting applies
 * to PRs admitted after it, and the `admitted` PRs the queue already holds keep their targets.
 */
export function pathTargetsChangeNote(
  before: PathTargets | null | undefined,
  after: PathTargets | null | undefined,
  admitted: number,
): string | null {
  if (isDeepStrictEqual(before ?? null, after ?? null)) return null;
  const what = !after ? 'turned off' : before ? 'changed' : 'set';
  const kept =
    admitted === 0
      ? 'the queue holds no PR now'
      : `the ${admitted === 1 ? 'PR' : `${admitted} PRs`} the queue holds now ${admitted === 1 ? 'keeps its' : 'keep their'} impacted targets`;
  return `impactedTargetsFromPaths ${what}: it applies to PRs admitted from now on; ${kept}`;
}
