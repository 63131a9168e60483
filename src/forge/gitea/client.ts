/**
 * Gitea's and Forgejo's REST API (`<url>/api/v1`) as the gitea forge calls it: JSON over `fetch`, the
 * token as `Authorization: token …`, lists read page by page (`page`, `limit` 50, the forges'
 * largest page unless an admin changed it) by following the `Link` header's `next`.
 *
 * Failures: a forge that cannot be reached, does not answer within the deadline (`requestTimeoutMs`,
 * forge-http.ts), refuses the token (401) or fails (5xx) is ForgeUnreachableError, saying what to
 * check; a rate limit (429, or 403 with `Retry-After`: Codeberg's and proxies' limits) is
 * ForgeRateLimitedError, with when to ask again; any other refusal is a GiteaApiError with the forge's
 * status and message, for the caller to read (404: no such thing; 409: head out of date, …).
 *
 * The dialect (Gitea or Forgejo) is asked once per server: Forgejo answers
 * `GET /api/forgejo/v1/version`, Gitea does not. It decides how the merge endpoint's fields are
 * spelled (Forgejo binds `Do` and `MergeCommitID`, Gitea `do` and `merge_commit_id`).
 */
import { type Clock, systemClock } from '../../lib/clock.js';
import { DEFAULT_FORGE_REQUEST_TIMEOUT_MS, rateLimitedUntil, withDeadline } from '../forge-http.js';
import { ForgeRateLimitedError, ForgeUnreachableError } from '../port.js';

export type Dialect = 'gitea' | 'forgejo';

export class GiteaApiError extends Error {
  override name = 'GiteaApiError';
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export const hasStatus = (err: unknown, status: number): boolean =>
  err instanceof GiteaApiError && err.status === status;

type Query = Record<string, string | number | undefined>;

export interface GiteaClientOptions {
  /** The HTTP client (default: the global fetch). */
  fetch?: typeof fetch;
  /** The deadline of each request, its answer read whole (default 30 s). */
  requestTimeoutMs?: number;
  /** The time a `Retry-After` counts from (default the system clock). */
  clock?: Clock;
}

/** One server's API, with the token. */
export class GiteaClient {
  private dialectAsked: Promise<Dialect> | null = null;
  private readonly fetchFn: typeof fetch;
  private readonly clock: Clock;

  constructor(
    /** The server's web address, e.g. `https://git.example.com` (no trailing slash). */
    readonly url: string,
    private readonly token: string,
    opts: GiteaClientOptions = {},
  ) {
    const ms = opts.requestTimeoutMs ?? DEFAULT_FORGE_REQUEST_TIMEOUT_MS;
    this.fetchFn = withDeadline(opts.fetch ?? ((input, init) => fetch(input, init)), ms, url);
    this.clock = opts.clock ?? systemClock;
  }

  /** `METHOD /api/v1<path>` with a JSON body; the answer's JSON (null for an empty answer). */
  async request<T = unknown>(method: string, path: string, body?: unknown, query: Query = {}): Promise<T> {
    const { data } = await this.send<T>(method, path, body, query);
    return data;
  }

  /** Every item of a paged list, page after page. */
  async all<T>(path: string, query: Query = {}): Promise<T[]> {
    const items: T[] = [];
    let next: string | null = this.apiUrl(path, { ...query, limit: 50 });
    for (let pages = 0; next && pages < 1000; pages++) {
      const { data, headers } = await this.sendTo<T[]>('GET', next);
      items.push(...(data ?? []));
      next = nextLink(headers.get('link'));
    }
    return items;
  }

  /** Gitea or Forgejo, asked once. */
  dialect(): Promise<Dialect> {
    this.dialectAsked ??= this.fetchRaw(`${this.url}/api/forgejo/v1/version`, { method: 'GET' })
      .then((res) => (res.ok ? 'forgejo' : 'gitea') as Dialect)
      .catch((err: unknown) => {
        this.dialectAsked = null;
        throw err;
      });
    return this.dialectAsked;
  }

  private apiUrl(path: string, query: Query): string {
    const u = new URL(`${this.url}/api/v1${path}`);
    for (const [k, v] of Object.entries(query)) if (v !== undefined) u.searchParams.set(k, String(v));
    return u.href;
  }

  private send<T>(method: string, path: string, body: unknown, query: Query) {
    return this.sendTo<T>(method, this.apiUrl(path, query), body);
  }

  private async sendTo<T>(method: string, url: string, body?: unknown): Promise<{ data: T; headers: Headers }> {
    const res = await this.fetchRaw(url, {
      method,
      headers: {
        authorization: `token ${this.token}`,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    let data: unknown = null;
    try {
      data = text === '' ? null : JSON.parse(text);
    } catch {
      data = text;
    }
    if (res.ok) return { data: data as T, headers: res.headers };
    const message =
      typeof (data as { message?: unknown })?.message === 'string' ? (data as { message: string }).message : text;
    const where = `${method} ${new URL(url).pathname}`;
    if (res.status === 401)
      throw new ForgeUnreachableError(
        `${this.url} refused greenline's token (${where}: ${message || '401'}): set giteaToken to a valid access token`,
      );
    if (res.status >= 500)
      throw new ForgeUnreachableError(`${this.url} failed (${where}: ${res.status} ${message}); it is tried again`);
    throw new GiteaApiError(res.status, `${where} answered ${res.status}${message ? `: ${message}` : ''}`);
  }

  /** The answer to a request; a rate limit is ForgeRateLimitedError, no answer ForgeUnreachableError. */
  private async fetchRaw(url: string, init: RequestInit): Promise<Response> {
    let res: Response;
    try {
      res = await this.fetchFn(url, init);
    } catch (err) {
      if (err instanceof ForgeUnreachableError) throw err;
      throw new ForgeUnreachableError(`cannot reach ${this.url}: ${String((err as Error).cause ?? err)}`, {
        cause: err,
      });
    }
    const retryAt = rateLimitedUntil(res.status, res.headers.get('retry-after'), this.clock.now());
    if (retryAt === null) return res;
    const where = `${init.method ?? 'GET'} ${new URL(url).pathname}`;
    throw new ForgeRateLimitedError(
      `${this.url} rate-limited greenline (${where}: ${res.status}) until ${new Date(retryAt).toISOString()}; greenline waits for it`,
      retryAt,
    );
  }
}

/** The `rel="next"` address of a `Link` header, or null. */
export function nextLink(link: string | null): string | null {
  for (const part of (link ?? '').split(',')) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (m) return m[1]!;
  }
  return null;
}
