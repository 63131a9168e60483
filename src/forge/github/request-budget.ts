/**
 * Spending GitHub's request budget (5,000 requests an hour for a token or an App installation) with care,
 * per client (installation or token):
 *
 * - Conditional requests: every GET names the ETag of the answer last cached for its URL
 *   (`If-None-Match`); GitHub answers 304 Not Modified, which costs nothing, when nothing changed, and
 *   the cached answer is returned. The cache is bounded (least recently used answers go first).
 * - The budget left: each answer's `x-ratelimit-remaining` and `x-ratelimit-reset` are kept. While
 *   at most `reserve` requests are left before the reset, no request is sent; the caller gets
 *   ForgeRateLimitedError, which tells when to try again (effects are retried then). A rate-limit
 *   answer the throttling plugin did not wait out (a wait over its maximum) becomes the same error:
 *   a 403 with x-ratelimit-remaining 0 until x-ratelimit-reset, else a 429 or a 403 with Retry-After
 *   as forge-http.ts reads them.
 * - Every answer is reported to `onResponse` (metrics: requests by method and status class, the budget left).
 */
import type { Clock } from '../../lib/clock.js';
import { rateLimitedUntil } from '../forge-http.js';
import { ForgeRateLimitedError } from '../port.js';
import type { GitHubApi } from './client.js';

/** One answer of GitHub, as the metrics count it. */
export interface GitHubResponseSeen {
  method: string;
  /** The HTTP status. */
  status: number;
  /** The client: `installation <id>` or `token`. */
  client: string;
  /** `x-ratelimit-remaining`, when the answer has it. */
  remaining?: number;
}

export interface RequestBudgetOptions {
  clock: Clock;
  /** The client's name in metrics and messages: `installation <id>` or `token`. */
  client: string;
  /** Requests kept back: at this many left or fewer, requests wait for the reset (default 10). */
  reserve?: number;
  /** Answers kept for conditional requests (default 2,000). */
  cacheSize?: number;
  onResponse?: (seen: GitHubResponseSeen) => void;
}

interface Cached {
  etag: string;
  response: Awaited<ReturnType<GitHubApi['request']>>;
}

/** A Map kept in order of use, the least recently used dropped beyond `size`. */
class LruCache<V> {
  private readonly map = new Map<string, V>();
  constructor(private readonly size: number) {}
  get(key: string): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }
  set(key: string, v: V): void {
    this.map.delete(key);
    this.map.set(key, v);
    if (this.map.size > this.size) this.map.delete(this.map.keys().next().value!);
  }
}

type Headers = Record<string, string | number | undefined>;

export class RequestBudget {
  private readonly cache: LruCache<Cached>;
  private remaining: number | null = null;
  /** When the budget is whole again (ms since the epoch). */
  private resetAt = 0;

  constructor(private readonly opts: RequestBudgetOptions) {
    this.cache = new LruCache(opts.cacheSize ?? 2_000);
  }

  /** Every HTTP request of the client goes through this fetch: its answers are counted and read for the budget. */
  wrapFetch(inner: typeof fetch): typeof fetch {
    return async (input, init) => {
      const res = await inner(input, init);
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      // App (JWT) requests have a budget of their own, not the installation's.
      if (!/\/app(\/|$)/.test(new URL(url).pathname)) this.note(res.headers.get.bind(res.headers));
      const remaining = res.headers.get('x-ratelimit-remaining');
      this.opts.onResponse?.({
        method: (init?.method ?? 'GET').toUpperCase(),
        status: res.status,
        client: this.opts.client,
        ...(remaining !== null && remaining !== '' ? { remaining: Number(remaining) } : {}),
      });
      return res;
    };
  }

  /** Registers the conditional requests and the budget check on the client's requests. */
  install(octokit: GitHubApi): void {
    octokit.hook.wrap('request', async (request, options) => {
      this.checkBudget();
      if (options.method !== 'GET') return this.converted(() => request(options));
      const { url, headers } = octokit.request.endpoint.parse(options);
      const key = `${headers.accept ?? ''} ${url}`;
      const cached = this.cache.get(key);
      if (cached) options.headers = { ...options.headers, 'if-none-match': cached.etag };
      try {
        const res = await this.converted(() => request(options));
        const etag = res.headers.etag;
        if (typeof etag === 'string' && etag !== '') this.cache.set(key, { etag, response: res });
        return res;
      } catch (err) {
        if (cached && (err as { status?: unknown }).status === 304) return cached.response;
        throw err;
      }
    });
  }

  /** Throws ForgeRateLimitedError while the budget is down to the reserve. */
  private checkBudget(): void {
    const now = this.opts.clock.now();
    if (this.remaining === null || this.remaining > (this.opts.reserve ?? 10) || now >= this.resetAt) return;
    throw new ForgeRateLimitedError(
      `GitHub's request budget of ${this.opts.client} is spent (${this.remaining} requests left) until ${new Date(this.resetAt).toISOString()}; greenline waits for the reset`,
      this.resetAt,
    );
  }

  /** A rate-limit answer that reaches here (not waited out) as ForgeRateLimitedError. */
  private async converted<T>(call: () => T | Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      const e = err as { status?: unknown; response?: { headers?: Headers } };
      const headers = e.response?.headers;
      if ((e.status !== 403 && e.status !== 429) || !headers) throw err;
      const now = this.opts.clock.now();
      const retryAt =
        String(headers['x-ratelimit-remaining']) === '0'
          ? Number(headers['x-ratelimit-reset']) * 1000
          : rateLimitedUntil(e.status, headers['retry-after']?.toString(), now);
      if (retryAt === null || !Number.isFinite(retryAt)) throw err;
      throw new ForgeRateLimitedError(
        `GitHub rate-limited ${this.opts.client} until ${new Date(retryAt).toISOString()} (${String((err as Error).message)}); greenline waits for it`,
        Math.max(retryAt, now),
        { cause: err },
      );
    }
  }

  private note(header: (name: string) => string | null): void {
    const remaining = header('x-ratelimit-remaining');
    const reset = header('x-ratelimit-reset');
    if (remaining === null || remaining === '' || reset === null) return;
    this.remaining = Number(remaining);
    this.resetAt = Number(reset) * 1000;
  }
}
