/**
 * When a message is tried again after a failed attempt, as Svix does: 5 s, 5 min, 30 min, 2 h, 5 h,
 * 10 h, 10 h after the previous attempt (8 attempts in all, the first immediately), then it is given
 * up. The same schedule for every outbox.
 *
 * Sooner when its endpoint is back. The endpoint is the subscription (a webhook subscription, a chat
 * channel): what messages are ordered, counted as failing and disabled by. Not the URL's origin: one
 * origin serves many receivers (every Slack channel is hooks.slack.com), of many organizations, and one
 * of them answering says nothing of another. A failure is the endpoint's when it had no answer (no
 * connection, a network error, the timeout) or a gateway's "not there" (502, 503, 504): any message
 * would have failed then. Every other failure (a 4xx, a 500, a redirect) is the receiver refusing that
 * message: it keeps its schedule. When the endpoint answers 2xx, the messages waiting for a retry after
 * an endpoint failure are due at once, and those held behind them for ordering follow, in order (the
 * worker, delivery/worker.ts); such an attempt counts as one of the 8. And a new message queued behind
 * one waiting for its endpoint has that one tried early (messages.ts, selectDueMessageIds), as it would
 * be tried at once without ordering: a failed early try neither counts nor moves the retry. The state
 * is the rows' (last status, next attempt, when queued and last tried), so a restart in an outage
 * changes nothing.
 */
import { HOUR_MS, MINUTE_MS, SECOND_MS } from '../lib/time.js';

/** Delay before attempt n + 2 after attempt n + 1 failed (the first attempt is immediate). */
export const RETRY_DELAYS_MS: readonly number[] = [
  5 * SECOND_MS,
  5 * MINUTE_MS,
  30 * MINUTE_MS,
  2 * HOUR_MS,
  5 * HOUR_MS,
  10 * HOUR_MS,
  10 * HOUR_MS,
];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** When to try again after the `attempts`-th attempt failed at `now`; null: give the message up. */
export function nextAttemptAt(attempts: number, now: number): number | null {
  return attempts >= MAX_ATTEMPTS ? null : now + RETRY_DELAYS_MS[attempts - 1]!;
}

/** The answers of a gateway in front of a receiver that is not there (bad gateway, unavailable, timeout). */
export const ENDPOINT_DOWN_STATUSES: readonly number[] = [502, 503, 504];

/** Whether a failed attempt was the endpoint's (no answer, or a gateway's 502/503/504), not the message's. */
export function endpointWasDown(failure: { statusCode: number | null }): boolean {
  return failure.statusCode === null || ENDPOINT_DOWN_STATUSES.includes(failure.statusCode);
}
