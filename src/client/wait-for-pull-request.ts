/**
 * Polls one PR until it reaches a terminal state (MERGED, FAILED, CANCELLED): what a CI job does after
 * submitting. States are compared in any letter case, since a server may run with
 * GREENLINE_ENUM_CASE=lower.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { GreenlineError } from './errors.js';
import type { GreenlineClient } from './greenline-client.js';
import type { CallOptions } from './transport.js';
import type { GetSubmittedPullRequestRequest, SubmittedPullRequest } from './types.js';

export const TERMINAL_PR_STATES: readonly string[] = ['MERGED', 'FAILED', 'CANCELLED'];

export const isTerminalState = (state: string): boolean => TERMINAL_PR_STATES.includes(state.toUpperCase());

export interface WaitForPullRequestOptions extends CallOptions {
  /** Pause between two reads; default 2 000 ms. */
  intervalMs?: number;
  /** Give up (WaitTimeoutError) when the PR is not terminal after this long; default: wait forever. */
  timeoutMs?: number;
  /** Called with the first read, and again whenever the state or its stateChangedAt changes. */
  onChange?: (pr: SubmittedPullRequest) => void;
}

export class WaitTimeoutError extends GreenlineError {
  override name = 'WaitTimeoutError';
  constructor(
    readonly last: SubmittedPullRequest,
    timeoutMs: number,
  ) {
    super(`PR #${last.prNumber} is still ${last.state} after ${timeoutMs / 1000} s`);
  }
}

/** Resolves with the PR once terminal; API and network errors of any read reject at once. */
export async function waitForPullRequest(
  client: GreenlineClient,
  request: GetSubmittedPullRequestRequest,
  options: WaitForPullRequestOptions = {},
): Promise<SubmittedPullRequest> {
  const { intervalMs = 2_000, timeoutMs, onChange, signal } = options;
  const deadline = timeoutMs === undefined ? Infinity : Date.now() + timeoutMs;
  let seen = '';
  for (;;) {
    const pr = await client.getSubmittedPullRequest(request, { signal });
    const key = `${pr.state} ${pr.stateChangedAt}`;
    if (key !== seen) {
      seen = key;
      onChange?.(pr);
    }
    if (isTerminalState(pr.state)) return pr;
    const left = deadline - Date.now();
    if (left <= 0) throw new WaitTimeoutError(pr, timeoutMs as number);
    await sleep(Math.min(intervalMs, left), undefined, signal ? { signal } : {});
  }
}
