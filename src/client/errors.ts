/**
 * What a client call throws. GreenlineApiError: the server answered with an error status (its
 * `{ error: { code, message } }` body, docs/errors.md). GreenlineNetworkError: no answer at all
 * (connection refused, DNS, reset, timeout). Both extend GreenlineError, so one `catch` can take both.
 */
import type { V1ErrorCode } from '../api/v1/error-status.js';

/**
 * A code of the v1 wire (docs/errors.md); UNEXPECTED_RESPONSE when the body was not greenline's
 * error shape (e.g. a proxy's HTML page) or a success body was not the JSON expected. Any other
 * string: a code from a newer server.
 */
export type GreenlineErrorCode = V1ErrorCode | 'UNEXPECTED_RESPONSE' | (string & {});

export class GreenlineError extends Error {
  override name = 'GreenlineError';
}

export class GreenlineApiError extends GreenlineError {
  override name = 'GreenlineApiError';
  constructor(
    readonly status: number,
    readonly code: GreenlineErrorCode,
    message: string,
  ) {
    super(message);
  }
}

export class GreenlineNetworkError extends GreenlineError {
  override name = 'GreenlineNetworkError';
  /** `url`: the request's address. `reason`: the system's error code (ECONNREFUSED, ENOTFOUND, …), or TIMEOUT. */
  constructor(
    readonly url: string,
    readonly reason: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** The API error in an answer that is not 2xx. */
export function apiErrorOf(status: number, statusText: string, bodyText: string): GreenlineApiError {
  try {
    const body = JSON.parse(bodyText) as { error?: { code?: unknown; message?: unknown } };
    const { code, message } = body.error ?? {};
    if (typeof code === 'string' && typeof message === 'string') return new GreenlineApiError(status, code, message);
  } catch {
    // Not JSON: reported below with the start of the text.
  }
  const excerpt = bodyText.trim().slice(0, 200);
  return new GreenlineApiError(
    status,
    'UNEXPECTED_RESPONSE',
    `HTTP ${status} ${statusText}${excerpt ? `: ${excerpt}` : ''}`,
  );
}

/** What fetch rejected with (other than the caller's own abort), as a network error naming the address. */
export function networkErrorOf(url: string, err: unknown, timeoutMs: number): GreenlineNetworkError {
  if (err instanceof Error && err.name === 'TimeoutError') {
    return new GreenlineNetworkError(url, 'TIMEOUT', `No answer from ${url} within ${timeoutMs} ms`, { cause: err });
  }
  // Node's fetch rejects with TypeError('fetch failed') whose cause carries the system error. A host
  // with several addresses (localhost: ::1 and 127.0.0.1) fails with an AggregateError of one error per
  // address, with an empty message and, in some Node 20 releases, no code: the first attempt tells.
  const cause = err instanceof Error ? (err.cause as SystemError | undefined) : undefined;
  const system = cause?.errors?.[0] ?? cause;
  const code = typeof system?.code === 'string' ? system.code : 'NETWORK';
  const detail =
    typeof system?.message === 'string' && system.message !== ''
      ? system.message
      : err instanceof Error
        ? err.message
        : String(err);
  return new GreenlineNetworkError(url, code, `Cannot reach ${url}: ${detail}`, { cause: err });
}

/** A system error (`code`: ECONNREFUSED, …), or an AggregateError of them (`errors`). */
interface SystemError {
  code?: unknown;
  message?: unknown;
  errors?: SystemError[];
}
