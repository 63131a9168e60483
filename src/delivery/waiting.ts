/**
 * Why a pending message has not gone out yet, and when it will, in words: shown where deliveries are
 * listed (listWebhookDeliveries, `greenline webhook deliveries`).
 */
import type { DeliveryMessageRow } from '../store/database.js';
import { endpointWasDown } from './retry-schedule.js';

const iso = (ms: number): string => new Date(ms).toISOString();

/** The reason a message is still pending; null when it is not. `held`: an earlier one of its order key is pending. */
export function waitingReason(
  m: Pick<
    DeliveryMessageRow,
    'status' | 'attempts' | 'next_attempt_at' | 'claimed_by' | 'last_status_code' | 'last_error'
  >,
  held: boolean,
): string | null {
  if (m.status !== 'pending') return null;
  if (m.claimed_by !== null)
    return `an attempt is under way; made again at ${iso(m.next_attempt_at)} if it gets no answer by then`;
  if (held) return 'held behind an earlier event of the same PR (or queue), which goes first';
  if (m.attempts === 0) return `not tried yet; due ${iso(m.next_attempt_at)}`;
  const failure = m.last_error ?? `HTTP ${m.last_status_code}`;
  return endpointWasDown({ statusCode: m.last_status_code })
    ? `the endpoint did not take it (${failure}); tried again at ${iso(m.next_attempt_at)}, or sooner: at once when the endpoint takes another delivery, and early (not counted if it fails) when a later event of the same PR (or queue) is queued`
    : `the receiver refused it (${failure}); tried again at ${iso(m.next_attempt_at)}`;
}
