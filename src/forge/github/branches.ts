/**
 * Branches through the git refs API, and the test branches built on them: a test branch is built on
 * a temporary branch (`<prefix>-temp/…`) from the base sha with the merges API (one merge commit per
 * PR, conflict = START_TEST_RUN_MERGE_CONFLICT), then published as the run's branch and the temporary
 * one deleted, so CI never sees a half-built branch. Each merge commit carries the message GitHub's
 * merge endpoint would give the PR's merge (pulls.ts mergeCommitMessage): fast-forwarding the target
 * to the tested commit lands good history. A 204 of the merges API ("already contained", also the
 * answer to a retry of a merge that went through) is checked: the temporary branch's head is read and
 * must contain the PR's head.
 * The built sha is told to `onBuilt` before the branch is published, so that a check reported on it at
 * once finds its run.
 */
import type { Logger } from 'pino';
import type { RunPr } from '../../engine/types.js';
import type { BuildResult, RepoBinding } from '../port.js';
import { allPages, failureOf, hasStatus, type RepoApi } from './client.js';
import { fetchPull, mergeCommitMessage } from './pulls.js';

/** A commit as the messages name it: its first 7 hex digits. */
export const short = (sha: string): string => sha.slice(0, 7);

/** `<prefix>/rest` → `<prefix>-temp/rest`: where a test branch is built before it is published. */
export function tempBranchOf(repo: RepoBinding, branch: string): string {
  const prefix = `${repo.testBranchPrefix}/`;
  return branch.startsWith(prefix)
    ? `${repo.testBranchPrefix}-temp/${branch.slice(prefix.length)}`
    : `greenline-temp/${branch}`;
}

/** The branch's head, or null when there is no such branch. */
export async function getBranchSha({ api, loc }: RepoApi, branch: string): Promise<string | null> {
  try {
    const { data } = await api.request('GET /repos/{owner}/{repo}/git/ref/{ref}', {
      ...loc,
      ref: `heads/${branch}`,
    });
    return data.object.sha;
  } catch (err) {
    if (hasStatus(err, 404)) return null;
    throw err;
  }
}

/** Names of the branches that start with `prefix` (matching refs). */
export async function listBranches({ api, loc }: RepoApi, prefix: string): Promise<string[]> {
  const refs = await allPages(
    api,
    api.request('GET /repos/{owner}/{repo}/git/matching-refs/{ref}', { ...loc, ref: `heads/${prefix}` }),
    (data) => data,
  );
  return refs.map((r) => r.ref.replace(/^refs\/heads\//, ''));
}

export async function createTestBranch(
  gh: RepoApi,
  logger: Logger,
  repo: RepoBinding,
  req: { branch: string; baseSha: string; prs: RunPr[]; onBuilt?: (sha: string) => Promise<void> },
): Promise<BuildResult> {
  const { api, loc } = gh;
  const temp = tempBranchOf(repo, req.branch);
  await setBranch(gh, temp, req.baseSha);
  let sha = req.baseSha;
  const steps: string[] = [];
  for (const pr of req.prs) {
    const pull = await fetchPull(gh, pr.number);
    try {
      const res = await api.request('POST /repos/{owner}/{repo}/merges', {
        ...loc,
        base: temp,
        head: pr.headSha,
        commit_message: pull ? mergeCommitMessage(pull, loc.owner) : `Merge pull request #${pr.number}`,
      });
      // 204: the head is already contained — or an earlier try merged it and its answer was lost.
      sha = res.status === 201 ? (res.data as { sha: string }).sha : await headContaining(gh, temp, pr.headSha);
      steps.push(sha);
    } catch (err) {
      if (!hasStatus(err, 409)) throw err;
      await removeBranch(gh, temp);
      const others = req.prs.slice(0, req.prs.indexOf(pr)).map((p) => `#${p.number}`);
      return {
        ok: false,
        reason: 'START_TEST_RUN_MERGE_CONFLICT',
        detail: `PR #${pr.number} does not merge cleanly onto ${short(req.baseSha)}${others.length ? ` with ${others.join(', ')}` : ''}: ${failureOf(err).message}`,
      };
    }
  }
  await req.onBuilt?.(sha);
  await setBranch(gh, req.branch, sha);
  await removeBranch(gh, temp);
  logger.info({ repo: `${loc.owner}/${loc.repo}`, branch: req.branch, sha }, 'test branch created');
  return { ok: true, sha, steps };
}

/** What GitHub lists of a comparison at most: a longer list is cut there. */
const COMPARE_FILES_LIMIT = 300;

/**
 * The paths changed on `to` since its merge base with `from`, by GitHub's comparison (a renamed file
 * is its old and its new path); null when the comparison lists as many files as GitHub lists at
 * most, so that some may be missing.
 */
export async function changedFiles(gh: RepoApi, commits: { from: string; to: string }): Promise<string[] | null> {
  const { data } = await gh.api.request('GET /repos/{owner}/{repo}/compare/{basehead}', {
    ...gh.loc,
    basehead: `${commits.from}...${commits.to}`,
  });
  const files = data.files ?? [];
  if (files.length >= COMPARE_FILES_LIMIT) return null;
  const paths = files.flatMap((f) => (f.previous_filename ? [f.previous_filename, f.filename] : [f.filename]));
  return [...new Set(paths)].sort();
}

/** The head of `branch`, which must contain `sha` (what a 204 of the merges API claims); throws otherwise. */
async function headContaining(gh: RepoApi, branch: string, sha: string): Promise<string> {
  const head = await getBranchSha(gh, branch);
  if (head === null) throw new Error(`branch ${branch} disappeared while the test branch was being built`);
  const { data } = await gh.api.request('GET /repos/{owner}/{repo}/compare/{basehead}', {
    ...gh.loc,
    basehead: `${sha}...${head}`,
  });
  if (data.status !== 'ahead' && data.status !== 'identical') {
    throw new Error(`GitHub said ${branch} contains ${short(sha)}, but its head ${short(head)} does not`);
  }
  return head;
}

/** Closes the test PRs opened for the branch (presence.ts), then deletes it; a missing branch is success. */
export async function deleteBranch(gh: RepoApi, branch: string): Promise<void> {
  const { api, loc } = gh;
  const open = await allPages(
    api,
    api.request('GET /repos/{owner}/{repo}/pulls', {
      ...loc,
      head: `${loc.owner}:${branch}`,
      state: 'open',
      per_page: 100,
    }),
    (data) => data,
  );
  for (const pr of open) {
    await api.request('PATCH /repos/{owner}/{repo}/pulls/{pull_number}', {
      ...loc,
      pull_number: pr.number,
      state: 'closed',
    });
  }
  await removeBranch(gh, branch);
}

/** Creates `branch` at sha, or moves it there (a test branch belongs to its run: a retry may replace it). */
async function setBranch({ api, loc }: RepoApi, branch: string, sha: string): Promise<void> {
  try {
    await api.request('POST /repos/{owner}/{repo}/git/refs', { ...loc, ref: `refs/heads/${branch}`, sha });
  } catch (err) {
    if (!hasStatus(err, 422)) throw err;
    await api.request('PATCH /repos/{owner}/{repo}/git/refs/{ref}', {
      ...loc,
      ref: `heads/${branch}`,
      sha,
      force: true,
    });
  }
}

async function removeBranch({ api, loc }: RepoApi, branch: string): Promise<void> {
  try {
    await api.request('DELETE /repos/{owner}/{repo}/git/refs/{ref}', { ...loc, ref: `heads/${branch}` });
  } catch (err) {
    if (!hasStatus(err, 404, 422)) throw err;
  }
}
