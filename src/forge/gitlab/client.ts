/**
 * GitLab's REST API (`<url>/api/v4`) as the gitlab forge calls it: JSON over `fetch`, the token as
 * `PRIVATE-TOKEN`, lists read page by page (`per_page` 100, GitLab's largest) by following the `Link`
 * header's `next` (else `x-next-page`).
 *
 * Failures: a server that cannot be reached, does not answer within the deadline (`requestTimeoutMs`,
 * forge-http.ts), refuses the token (401 on a read) or fails (5xx) is ForgeUnreachableError, saying
 * what to check; a rate limit (429, or 403 with `Retry-After`) is ForgeRateLimitedError with when to
 * ask again (`Retry-After`, else `RateLimit-Reset`); any other refusal is a GitlabApiError with
 * GitLab's status and message, for the caller to read (404: no such thing; 405/409/422 on merge …).
 * Nothing is retried here: what waits is decided by the effect that asked.
 */
import { type Clock, systemClock } from '../../lib/clock.js';
import { DEFAULT_FORGE_REQUEST_TIMEOUT_MS, rateLimitedUntil, withDeadline } from '../forge-http.js';
import { ForgeRateLimitedError, ForgeUnreachableError } from '../port.js';

export class GitlabApiError extends Error {
  override name = 'GitlabApiError';
  constructor(
    readonly status: number,
    /** GitLab's own message (`SHA does not match HEAD of source branch`). */
    readonly gitlabMessage: string,
    message: string,
  ) {
    super(message);
  }
}

export const hasStatus = (err: unknown, ...statuses: number[]): boolean =>
  err instanceof GitlabApiError && statuses.includes(err.status);

type Query = Record<string, string | number | boolean | undefined>;

export interface GitlabClientOptions {
  fetch?: typeof fetch;
  requestTimeoutMs?: number;
  clock?: Clock;
}

export class GitlabClient {
  private readonly fetchFn: typeof fetch;
  private readonly clock: Clock;

  constructor(
    /** The server's web address, e.g. `https://gitlab.example.com` (no trailing slash). */
    readonly url: string,
    private readonly token: string,
    opts: GitlabClientOptions = {},
  ) {
    const ms = opts.requestTimeoutMs ?? DEFAULT_FORGE_REQUEST_TIMEOUT_MS;
    this.fetchFn = withDeadline(opts.fetch ?? ((input, init) => fetch(input, init)), ms, url);
    this.clock = opts.clock ?? systemClock;
  }

  /** `METHOD /api/v4<path>` with a JSON body; the answer's JSON (null for an empty answer). */
  async request<T = unknown>(method: string, path: string, body?: unknown, query: Query = {}): Promise<T> {
    return (await this.send<T>(method, this.apiUrl(path, query), body)).data;
  }

  /** Every item of a paged list, page after page. */
  async all<T>(path: string, query: Query = {}): Promise<T[]> {
    const items: T[] = [];
    let next: string | null = this.apiUrl(path, { ...query, per_page: 100 });
    for (let pages = 0; next && pages < 1000; pages++) {
      const { data, headers } = await this.send<T[]>('GET', next);
      items.push(...(data ?? []));
      next = nextPage(next, headers);
    }
    return items;
  }

  private apiUrl(path: string, query: Query): string {
    const u = new URL(`${this.url}/api/v4${path}`);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) u.searchParams.set(k, String(v));
    return u.href;
  }

  private async send<T>(method: string, url: string, body?: unknown): Promise<{ data: T; headers: Headers }> {
    const where = `${method} ${new URL(url).pathname}`;
    let res: Response;
    try {
      res = await this.fetchFn(url, {
        method,
        headers: {
          'private-token': this.token,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (err) {
      if (err instanceof ForgeUnreachableError) throw err;
      throw new ForgeUnreachableError(`cannot reach ${this.url}: ${String((err as Error).cause ?? err)}`, {
        cause: err,
      });
    }
    const retryAt =
      rateLimitedUntil(res.status, res.headers.get('retry-after'), this.clock.now()) ??
      (res.status === 403 ? resetAt(res.headers.get('ratelimit-remaining'), res.headers.get('ratelimit-reset')) : null);
    if (retryAt !== null)
      throw new ForgeRateLimitedError(
        `${this.url} rate-limited greenline (${where}: ${res.status}) until ${new Date(retryAt).toISOString()}; greenline waits for it`,
        retryAt,
      );
    const text = await res.text();
    let data: unknown = null;
    try {
      data = text === '' ? null : JSON.parse(text);
    } catch {
      data = text;
    }
    if (res.ok) return { data: data as T, headers: res.headers };
    const message = messageOf(data) ?? text;
    if (res.status === 401 && method === 'GET')
      throw new ForgeUnreachableError(
        `${this.url} refused greenline's token (${where}: ${message || '401'}): set gitlabToken to a valid access token with the api scope`,
      );
    if (res.status >= 500)
      throw new ForgeUnreachableError(`${this.url} failed (${where}: ${res.status} ${message}); it is tried again`);
    throw new GitlabApiError(res.status, message, `${where} answered ${res.status}${message ? `: ${message}` : ''}`);
  }
}

/** GitLab's error message: `{"message": "…"}`, `{"message": {"field": ["…"]}}` or `{"error": "…"}`. */
function messageOf(data: unknown): string | null {
  const d = data as { message?: unknown; error?: unknown } | null;
  if (typeof d?.message === 'string') return d.message;
  if (d?.message && typeof d.message === 'object') return JSON.stringify(d.message);
  return typeof d?.error === 'string' ? d.error : null;
}

/** A 403 with no request left until `RateLimit-Reset` (seconds since the epoch): when to ask again. */
function resetAt(remaining: string | null, reset: string | null): number | null {
  return remaining === '0' && reset && /^\d+$/.test(reset) ? Number(reset) * 1000 : null;
}

/** The next page's address: the `Link` header's `next`, else `x-next-page` on the same address. */
export function nextPage(current: string, headers: Headers): string | null {
  for (const part of (headers.get('link') ?? '').split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (m) return m[1]!;
  }
  const page = headers.get('x-next-page');
  if (!page) return null;
  const u = new URL(current);
  u.searchParams.set('page', page);
  return u.href;
}
