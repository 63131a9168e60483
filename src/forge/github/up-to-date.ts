/**
 * Bringing a PR's branch up to date with its target before merging it, where the target requires
 * branches to be up to date before merging (strict) and greenline cannot fast-forward it: GitHub's
 * `update-branch` merges the target's tip into the PR's head, guarded by `expected_head_sha` (the
 * tested head, so that nothing pushed since is merged untested). GitHub does so in the background
 * (202); the PR is read again until its head moved.
 *
 * The new head holds exactly the target's tip and the tested head — what the queue's test commit
 * built at that PR's place — so merging it lands the tested content; anything else is not merged.
 * GitHub merges nothing whose required checks have not passed on its head, and the new head has none
 * yet: greenline's own check is passed on it (`passOwnCheck`), and the others, which GitHub runs again
 * on the new head, are waited for; one that fails there fails the PR, naming it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { short } from './branches.js';
import { failureOf, hasStatus, type RepoApi } from './client.js';
import { fetchPull } from './pulls.js';
import { commitChecks, requiredStatuses } from './required-checks.js';

/** Reads of the PR while GitHub updates its branch, and the pause between two. */
const UPDATE_READS = 30;
const UPDATE_PAUSE_MS = 1000;
/** Reads of the updated head's required checks while GitHub runs them (an hour), and the pause between two. */
const CHECK_READS = 120;
const CHECK_PAUSE_MS = 30_000;

export type UpToDate =
  | { ok: true; head: string; updated: boolean }
  | { ok: false; reason: 'PR_UPDATED_AT_MERGE_TIME' | 'MERGE_REFUSED'; detail: string };

/** Whether `head` contains `base` (GitHub's compare: `head` is ahead of or identical to `base`). */
async function contains({ api, loc }: RepoApi, base: string, head: string): Promise<boolean> {
  const { data } = await api.request('GET /repos/{owner}/{repo}/compare/{basehead}', {
    ...loc,
    basehead: `${base}...${head}`,
  });
  return data.status === 'ahead' || data.status === 'identical';
}

/**
 * The head to merge PR `pr` with onto `tip` of `target`: its tested head when that contains the tip,
 * else the head GitHub made by bringing it up to date.
 */
export async function upToDateHead(
  gh: RepoApi,
  pr: { number: number; headSha: string },
  target: string,
  tip: string,
  passOwnCheck: (sha: string) => Promise<void>,
): Promise<UpToDate> {
  if (await contains(gh, tip, pr.headSha)) return { ok: true, head: pr.headSha, updated: false };
  try {
    await gh.api.request('PUT /repos/{owner}/{repo}/pulls/{pull_number}/update-branch', {
      ...gh.loc,
      pull_number: pr.number,
      expected_head_sha: pr.headSha,
    });
  } catch (err) {
    if (!hasStatus(err, 403, 422)) throw err;
    const { message } = failureOf(err);
    if (/expected head sha/i.test(message)) {
      return {
        ok: false,
        reason: 'PR_UPDATED_AT_MERGE_TIME',
        detail: `PR #${pr.number} is no longer at the tested ${short(pr.headSha)}, so its branch was not brought up to date with ${target} (GitHub: ${message})`,
      };
    }
    return {
      ok: false,
      reason: 'MERGE_REFUSED',
      detail: `GitHub refused to bring PR #${pr.number}'s branch up to date with ${target} (update-branch: ${message}); give greenline's App write access to the PR's head repository, or let the PR's author merge ${target} into it`,
    };
  }
  for (let read = 1; read <= UPDATE_READS; read++) {
    const now = await fetchPull(gh, pr.number);
    const head = now?.head.sha;
    if (head && head !== pr.headSha) {
      if ((await contains(gh, pr.headSha, head)) && (await contains(gh, tip, head))) {
        await passOwnCheck(head);
        const failed = await requiredChecksOf(gh, target, head);
        if (failed === null) return { ok: true, head, updated: true };
        return {
          ok: false,
          reason: 'MERGE_REFUSED',
          detail: `PR #${pr.number}'s branch was brought up to date with ${target} (${short(head)}), and ${failed}`,
        };
      }
      return {
        ok: false,
        reason: 'PR_UPDATED_AT_MERGE_TIME',
        detail: `PR #${pr.number} moved to ${short(head)}, which is not its tested head ${short(pr.headSha)} brought up to date with ${target}`,
      };
    }
    if (read < UPDATE_READS) await sleep(UPDATE_PAUSE_MS);
  }
  return {
    ok: false,
    reason: 'MERGE_REFUSED',
    detail: `GitHub accepted to bring PR #${pr.number}'s branch up to date with ${target}, but its head was still ${short(pr.headSha)} after ${(UPDATE_READS * UPDATE_PAUSE_MS) / 1000} seconds`,
  };
}

/**
 * Waits for the checks `target` requires to pass on `head`: null once they all did, else what
 * failed (or did not finish) in words.
 */
async function requiredChecksOf(gh: RepoApi, target: string, head: string): Promise<string | null> {
  const required = await requiredStatuses(gh, target);
  for (let read = 1; ; read++) {
    const checks = await commitChecks(gh, head);
    const missing: string[] = [];
    for (const context of required) {
      const state = checks.find((c) => c.context === context)?.state;
      if (state === 'failure' || state === 'error')
        return `its required check "${context}" failed there; fix the PR and submit it again`;
      if (state !== 'success' && state !== 'skipped') missing.push(`"${context}"`);
    }
    if (missing.length === 0) return null;
    if (read === CHECK_READS)
      return `its required checks ${missing.join(', ')} had not passed there after ${(CHECK_READS * CHECK_PAUSE_MS) / 60_000} minutes; submit it again once they have`;
    await sleep(CHECK_PAUSE_MS);
  }
}
