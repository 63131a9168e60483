/**
 * What every forge's HTTP client does alike (ForgePort asks it of each forge): a deadline on every
 * request, and the forge's rate-limit answers read as ForgeRateLimitedError.
 *
 * - Deadline: `withDeadline` wraps a `fetch` so that each request has its whole answer (status,
 *   headers and body) within the deadline, or fails with ForgeDeadlineError naming the forge, the
 *   method and the path (never the query or credentials). The request is aborted then. A forge that
 *   accepts the connection and never answers thus holds its queue's effects for one deadline, not
 *   for the HTTP stack's own timeouts (minutes).
 * - Rate limits: `rateLimitedUntil` reads a 429, or a 403 with `Retry-After`, as "ask again at": the
 *   caller throws ForgeRateLimitedError with it, and the effect waits until then, its attempt not
 *   counted.
 */
import { ForgeUnreachableError } from './port.js';

/** The deadline of a forge request unless configured (the server setting forgeRequestTimeoutSeconds). */
export const DEFAULT_FORGE_REQUEST_TIMEOUT_MS = 30_000;

/** How long a forge that answered 429 without `Retry-After` is left alone: a minute, as GitHub asks. */
export const DEFAULT_RATE_LIMIT_WAIT_MS = 60_000;

/** A forge request had no whole answer within its deadline. */
export class ForgeDeadlineError extends ForgeUnreachableError {
  override name = 'ForgeDeadlineError';
}

/** Statuses whose answers have no body (a Response with one cannot be made). */
const NO_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * `inner` with a deadline of `ms` on each request, its body included (the answer is read whole within
 * it). `forge` names the forge in the error's message (`GitHub`, `https://codeberg.org`).
 */
export function withDeadline(inner: typeof fetch, ms: number, forge: string): typeof fetch {
  return async (input, init) => {
    const request = input instanceof Request ? input : null;
    const url = new URL(request?.url ?? String(input));
    const method = (init?.method ?? request?.method ?? 'GET').toUpperCase();
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const err = new ForgeDeadlineError(`${forge} did not answer ${method} ${url.pathname} within ${ms / 1000} s`);
        reject(err);
        controller.abort(err);
      }, ms);
    });
    const signal = init?.signal ? AbortSignal.any([init.signal, controller.signal]) : controller.signal;
    try {
      // Raced as well as aborted: the deadline holds even for a fetch that ignores the signal.
      return await Promise.race([late, readWhole(inner(input, { ...init, signal }))]);
    } finally {
      clearTimeout(timer);
    }
  };
}

/** The answer with its body read (so that the deadline covers the body too). */
async function readWhole(answer: Promise<Response>): Promise<Response> {
  const res = await answer;
  const body = NO_BODY.has(res.status) ? null : await res.arrayBuffer();
  const whole = new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
  Object.defineProperty(whole, 'url', { value: res.url });
  return whole;
}

/**
 * When a forge that answered `status` lets greenline ask again (ms since the epoch), or null when the
 * answer is no rate limit. A rate limit is a 429, or a 403 with `Retry-After`; `Retry-After` is
 * seconds or an HTTP date; a 429 without a readable one waits DEFAULT_RATE_LIMIT_WAIT_MS. The wait is
 * a second at least, so that a forge answering `Retry-After: 0` is not asked again and again at once.
 */
export function rateLimitedUntil(status: number, retryAfter: string | null | undefined, now: number): number | null {
  if (status !== 429 && status !== 403) return null;
  const text = (retryAfter ?? '').trim();
  const at = /^\d+$/.test(text) ? now + Number(text) * 1000 : text === '' ? Number.NaN : Date.parse(text);
  if (Number.isFinite(at)) return Math.max(at, now + 1000);
  return status === 429 ? now + DEFAULT_RATE_LIMIT_WAIT_MS : null;
}
