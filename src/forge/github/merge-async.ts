/**
 * Merging a PR of a GitHub stack. GitHub merges stacked PRs only through its asynchronous merge
 * (`PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge-async`, which merges every PR of the stack up
 * to the one named; the classic merge endpoint refuses them). The request answers 202 with a UUID; 409
 * with the UUID of a request made before (a retry of this merge whose answer was lost: that request is
 * the one followed); 200 when the PR is merged already; 400 when GitHub will not merge it (closed,
 * draft), in GitHub's words. Its result is then read by the UUID (`GET …/merge-async/{uuid}`) until
 * it is merged or failed. The tested head is the `sha` guard, as with the classic endpoint: GitHub
 * cancels the merge when the PR was pushed meanwhile. The merge is always direct (`merge_action:
 * direct_merge`): greenline is the queue.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { failureOf, type RepoApi } from './client.js';
import { fetchPull } from './pulls.js';

/** How long greenline follows an asynchronous merge within one attempt of the merge effect. */
export interface AsyncMergePolling {
  /** Between two reads of the result (default 1 s). */
  intervalMs: number;
  /** Reads before the attempt gives up and the merge effect is tried again later (default 60). */
  reads: number;
}

export const DEFAULT_ASYNC_MERGE_POLLING: AsyncMergePolling = { intervalMs: 1000, reads: 60 };

/** The merge's end: the sha GitHub merged the PR at, or its refusal in words (`changed`: the `sha` guard). */
export type AsyncMergeEnd = { merged: string } | { refused: string; changed: boolean };

/** A result of the asynchronous merge as GitHub describes it (pull-request-merge-async-result). */
interface AsyncResult {
  status: 'pending' | 'merged' | 'enqueued' | 'failed';
  details: { message: string; uuid?: string; sha?: string };
}

/** GitHub's asynchronous merge did not end within the attempt: the merge effect is tried again, and finds it. */
export class AsyncMergePendingError extends Error {
  override name = 'AsyncMergePendingError';
}

/** The UUID of the request, or the end GitHub answered at once. */
async function request(
  { api, loc }: RepoApi,
  pr: { number: number; headSha: string },
  method: 'merge' | 'squash' | 'rebase',
  title: string | null,
): Promise<{ uuid: string } | AsyncMergeEnd> {
  try {
    const { data } = await api.request('PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge-async', {
      ...loc,
      pull_number: pr.number,
      sha: pr.headSha,
      merge_method: method,
      merge_action: 'direct_merge',
      ...(title ? { commit_title: title } : {}),
    });
    return endOf(pr.number, data as AsyncResult);
  } catch (err) {
    const { status, message } = failureOf(err);
    const data = (err as { response?: { data?: Partial<AsyncResult> } }).response?.data;
    if (status === 409 && data?.details?.uuid) return { uuid: data.details.uuid };
    const why = data?.details?.message ?? message;
    return { refused: `GitHub refused to merge PR #${pr.number} (HTTP ${status}): ${why}`, changed: false };
  }
}

/** What a result says: ended, or the UUID to read it by while pending. */
function endOf(n: number, result: AsyncResult): { uuid: string } | AsyncMergeEnd {
  const { status, details } = result;
  if (status === 'merged' && details.sha) return { merged: details.sha };
  if (status === 'pending' && details.uuid) return { uuid: details.uuid };
  if (status === 'enqueued')
    return {
      refused: `GitHub put PR #${n} into its own merge queue instead of merging it (${details.message}): remove the merge_queue rule of its base branch to merge with greenline`,
      changed: false,
    };
  return { refused: `GitHub's asynchronous merge of PR #${n} failed: ${details.message}`, changed: false };
}

/** Merges the stacked PR through GitHub's asynchronous merge and follows it to its end. */
export async function mergeAsync(
  gh: RepoApi,
  pr: { number: number; headSha: string },
  method: 'merge' | 'squash' | 'rebase',
  title: string | null,
  polling: AsyncMergePolling,
): Promise<AsyncMergeEnd> {
  const asked = await request(gh, pr, method, title);
  if (!('uuid' in asked)) return asked;
  for (let read = 0; read < polling.reads; read++) {
    if (read > 0) await sleep(polling.intervalMs);
    const { data } = await gh.api.request('GET /repos/{owner}/{repo}/pulls/{pull_number}/merge-async/{uuid}', {
      ...gh.loc,
      pull_number: pr.number,
      uuid: asked.uuid,
    });
    const end = endOf(pr.number, data as AsyncResult);
    if ('merged' in end) return end;
    if ('refused' in end) {
      // GitHub cancels the merge when the PR was pushed after it was asked for: the `sha` guard.
      const now = await fetchPull(gh, pr.number);
      return { ...end, changed: now !== null && now.head.sha !== pr.headSha };
    }
  }
  throw new AsyncMergePendingError(
    `GitHub has not finished merging PR #${pr.number} (asynchronous merge ${asked.uuid}) after ${polling.reads} reads; it is read again on the next attempt`,
  );
}
