/**
 * Octokit clients for the github forge: one per App installation (or one for a token), each with the
 * throttling plugin (waits out primary and secondary rate limits: 429, and 403 with retry-after or
 * x-ratelimit-reset) and the retry plugin (bounded retries of 5xx, and of the 405 GitHub asks to
 * merge again; creations that a retry could duplicate opt out, see create-once.ts). Everything goes
 * through the `fetch` given (the global one unless injected). Each client is throttled on its own (its
 * own lane of writes), as GitHub limits each installation and token, and spends its request budget
 * with care (request-budget.ts: conditional requests, waits for the reset). Each HTTP request has a
 * deadline (`requestTimeoutMs`, forge-http.ts); one that has no answer by then is not retried here
 * (the effect that needed it is, later). `allPages` reads every page of a list answer.
 */
import { createHash } from 'node:crypto';
import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/core';
import { retry } from '@octokit/plugin-retry';
import { throttling, type ThrottlingOptions } from '@octokit/plugin-throttling';
import type { Logger } from 'pino';
import { type Clock, systemClock } from '../../lib/clock.js';
import { DEFAULT_FORGE_REQUEST_TIMEOUT_MS, ForgeDeadlineError, withDeadline } from '../forge-http.js';
import { ForgeUnreachableError, type RepoBinding } from '../port.js';
import { type GitHubResponseSeen, RequestBudget } from './request-budget.js';

/**
 * 405 is final, except where GitHub asks to try again: the merge endpoint's "Base branch was
 * modified. Review and try the merge again." So is a request that had no answer within its deadline:
 * retried at once, it would hold its queue for several deadlines. Registered before the retry
 * plugin, so that its error hook sees the request's `retries` set to 0 for a final 405 or deadline.
 */
function finalRefusals(octokit: Octokit): void {
  octokit.hook.error('request', (error, options) => {
    const e = error as { status?: unknown; message?: unknown; cause?: unknown };
    const mergeAgain =
      options.method === 'PUT' &&
      /\/pulls\/[^/]+\/merge$/.test(String(options.url)) &&
      /base branch was modified/i.test(String(e.message));
    if ((e.status === 405 && !mergeAgain) || e.cause instanceof ForgeDeadlineError)
      options.request = { ...options.request, retries: 0 };
    throw error;
  });
}

export const GitHubOctokit = Octokit.plugin(throttling, finalRefusals, retry);
export type GitHubApi = InstanceType<typeof GitHubOctokit>;

export type GitHubAuth = { kind: 'token'; token: string } | { kind: 'app'; appId: number; privateKey: string };

export interface GitHubClientOptions {
  auth: GitHubAuth;
  /** REST API base: https://api.github.com, or https://HOST/api/v3 for GitHub Enterprise Server. */
  baseUrl?: string;
  logger: Logger;
  /** The fetch every request goes through (default: the global fetch). */
  fetch?: typeof fetch;
  /**
   * The deadline of each HTTP request, its answer read whole (default 30 s): without an answer by then
   * the request fails with ForgeDeadlineError (a ForgeUnreachableError), not retried.
   */
  requestTimeoutMs?: number;
  /**
   * Rate-limit handling. `maxRetries` rate-limited retries of one request (default 3), each waiting at
   * most `maxWaitSeconds` (default 120; a longer wait fails the request, and the effect is retried
   * later). The rest is passed to the throttling plugin (e.g. its `retryAfterBaseValue` and groups).
   */
  throttle?: { maxRetries?: number; maxWaitSeconds?: number } & Partial<
    Omit<ThrottlingOptions, 'onRateLimit' | 'onSecondaryRateLimit'>
  >;
  /** Retries of 5xx answers (default 3) and the base of their backoff in ms (default 1000). */
  retry?: { retries?: number; retryAfterBaseValue?: number };
  /** The time the request budget's reset is compared with (default the system clock). */
  clock?: Clock;
  /** Requests of the hourly budget kept back: at this many left, requests wait for the reset (default 10). */
  rateLimitReserve?: number;
  /** Told of every answer of GitHub (metrics). */
  onResponse?: (seen: GitHubResponseSeen) => void;
}

/** One repository's client with the `{ owner, repo }` that every request about the repository names. */
export interface RepoApi {
  api: GitHubApi;
  loc: { owner: string; repo: string };
}

/** GitHub's answer to a request that failed: its status and message. */
export interface GitHubFailure {
  status: number;
  message: string;
}

/**
 * The error a request failed with, as the rest of the service should see it: an Octokit error without an
 * answer (refused, reset, DNS, TLS, timeout: octokit reports these as status 500 without a response)
 * becomes ForgeUnreachableError (the deadline's own ForgeDeadlineError when it was the deadline);
 * GitHub's answers and everything else stay as they are.
 */
export function unreachableOrSelf(err: unknown): unknown {
  const e = err as { status?: unknown; message?: unknown; response?: unknown; cause?: unknown };
  if (e?.cause instanceof ForgeDeadlineError) return e.cause;
  if (typeof e?.status !== 'number' || e.response !== undefined) return err;
  return new ForgeUnreachableError(`GitHub cannot be reached: ${String(e.message)}`, { cause: err });
}

/** The status and GitHub's own message of an Octokit error answered by GitHub; anything else is rethrown. */
export function failureOf(err: unknown): GitHubFailure {
  const e = err as { status?: unknown; message?: unknown; response?: { data?: unknown } };
  if (typeof e?.status !== 'number' || e.response === undefined) throw unreachableOrSelf(err);
  const data = e.response.data as { message?: unknown; errors?: { message?: string }[] } | undefined;
  const extra = (data?.errors ?? [])
    .map((x) => x.message)
    .filter(Boolean)
    .join('; ');
  const message = typeof data?.message === 'string' ? data.message : String(e.message);
  return { status: e.status, message: extra ? `${message} (${extra})` : message };
}

/** True when err is an Octokit answer with one of the statuses. */
export function hasStatus(err: unknown, ...statuses: number[]): boolean {
  const e = err as { status?: unknown; response?: unknown };
  return typeof e?.status === 'number' && e.response !== undefined && statuses.includes(e.status);
}

/** The client key of a token: a digest, so that two tokens never share a lane and no token is kept as a key. */
const tokenKey = (token: string): string => `token:${createHash('sha256').update(token).digest('hex').slice(0, 16)}`;
/** A repository's key in the caches: `owner/name` in lower case (GitHub's names are case-insensitive). */
const repoKey = (repo: RepoBinding): string => `${repo.repo.owner}/${repo.repo.name}`.toLowerCase();
/** The GitHub App installation the binding's forge data names (`installationId`); null: looked up. */
function installationIdOf(repo: RepoBinding): number | null {
  const id = repo.forgeData?.installationId;
  return typeof id === 'number' ? id : null;
}

/** The `rel="next"` address of a `Link` header, or null on the last page. */
function nextPage(link: string | undefined): string | null {
  return /<([^>]+)>;\s*rel="next"/.exec(link ?? '')?.[1] ?? null;
}

/**
 * Every item of a list GitHub answers in pages: the first answer's items, then those of each page its
 * `Link` header names as `rel="next"`. `items` picks the list from an answer (the answer itself, or the
 * list inside it: `check_runs`, `statuses`, …).
 */
export async function allPages<D, T>(
  api: GitHubApi,
  first: Promise<{ data: D; headers: { link?: string } }>,
  items: (data: D) => T[],
): Promise<T[]> {
  let res = await first;
  const all = [...items(res.data)];
  for (let next = nextPage(res.headers.link); next !== null; next = nextPage(res.headers.link)) {
    res = (await api.request({ method: 'GET', url: next })) as unknown as typeof res;
    all.push(...items(res.data));
  }
  return all;
}

export class GitHubClients {
  private readonly byInstallation = new Map<string, GitHubApi>();
  /** The installation looked up for each repository (repoKey), while GitHub says nothing changed. */
  private readonly installationOfRepo = new Map<string, number>();
  private appClient: GitHubApi | null = null;

  constructor(private readonly opts: GitHubClientOptions) {}

  get baseUrl(): string {
    return this.opts.baseUrl ?? 'https://api.github.com';
  }

  /** Whether status checks can be check runs (only an App may create them; a token posts commit statuses). */
  get canCreateCheckRuns(): boolean {
    return this.opts.auth.kind === 'app';
  }

  /**
   * The client for a repository: the token's, or its App installation's. An installation not
   * configured is looked up once and kept until GitHub says it changed: an `installation*` delivery
   * (forgetInstallation), or an installation token it no longer hands out (the App was uninstalled,
   * perhaps installed again under a new id), which has it looked up again, once.
   */
  async forRepo(repo: RepoBinding): Promise<GitHubApi> {
    const auth = this.opts.auth;
    if (auth.kind === 'token') return this.client(tokenKey(auth.token), { auth: auth.token });
    const given = installationIdOf(repo);
    if (given !== null) return this.installationClient(given);
    const known = this.installationOfRepo.get(repoKey(repo));
    if (known !== undefined) {
      const client = this.installationClient(known);
      try {
        // The installation's token: kept by the client until it expires, created (one request) otherwise.
        await client.auth({ type: 'installation' });
        return client;
      } catch (err) {
        if (!hasStatus(err, 401, 404)) throw err;
        this.opts.logger.info(
          { repo: repoKey(repo), installationId: known, status: (err as { status: number }).status },
          'GitHub refused a token for the installation; looking it up again',
        );
        this.forgetInstallation({ installationId: known, repositories: [] });
      }
    }
    return this.installationClient(await this.lookUpInstallation(repo));
  }

  /**
   * Forgets what is kept of an installation (GitHub told it changed: created, deleted, suspended,
   * unsuspended, new permissions accepted, repositories added or removed): its client with its token,
   * and which repositories it was looked up for, as well as the installation looked up for each of
   * `repositories` (`owner/name`). The next request of those repositories looks them up again.
   */
  forgetInstallation(change: { installationId: number; repositories: string[] }): void {
    this.byInstallation.delete(`installation:${change.installationId}`);
    const names = new Set(change.repositories.map((r) => r.toLowerCase()));
    for (const [key, id] of this.installationOfRepo)
      if (id === change.installationId || names.has(key)) this.installationOfRepo.delete(key);
  }

  private installationClient(installationId: number): GitHubApi {
    const auth = this.opts.auth as Extract<GitHubAuth, { kind: 'app' }>;
    return this.client(`installation:${installationId}`, {
      authStrategy: createAppAuth,
      auth: { appId: auth.appId, privateKey: auth.privateKey, installationId },
    });
  }

  /** forRepo, with the repository's `{ owner, repo }`. */
  async repoApi(repo: RepoBinding): Promise<RepoApi> {
    return { api: await this.forRepo(repo), loc: { owner: repo.repo.owner, repo: repo.repo.name } };
  }

  private async lookUpInstallation(repo: RepoBinding): Promise<number> {
    const key = repoKey(repo);
    const auth = this.opts.auth as Extract<GitHubAuth, { kind: 'app' }>;
    this.appClient ??= this.client('app', {
      authStrategy: createAppAuth,
      auth: { appId: auth.appId, privateKey: auth.privateKey },
    });
    try {
      const { data } = await this.appClient.request('GET /repos/{owner}/{repo}/installation', {
        owner: repo.repo.owner,
        repo: repo.repo.name,
      });
      this.installationOfRepo.set(key, data.id);
      return data.id;
    } catch (err) {
      if (hasStatus(err, 404)) {
        throw new ForgeUnreachableError(
          `The GitHub App (id ${auth.appId}) is not installed on ${repo.repo.owner}/${repo.repo.name}: install it on the repository, or connect it with --installation-id`,
        );
      }
      throw err;
    }
  }

  private client(key: string, extra: Record<string, unknown>): GitHubApi {
    const found = this.byInstallation.get(key);
    if (found) return found;
    const { logger } = this.opts;
    const maxRetries = this.opts.throttle?.maxRetries ?? 3;
    const maxWait = this.opts.throttle?.maxWaitSeconds ?? 120;
    const onLimit =
      (kind: string) =>
      (retryAfter: number, options: { method: string; url: string }, _o: unknown, retryCount: number): boolean => {
        const again = retryCount < maxRetries && retryAfter <= maxWait;
        logger.warn(
          { method: options.method, url: options.url, retryAfter, retryCount },
          again ? `GitHub ${kind}; waiting` : `GitHub ${kind}; giving up`,
        );
        return again;
      };
    const { maxRetries: _m, maxWaitSeconds: _w, ...throttle } = this.opts.throttle ?? {};
    const budget = new RequestBudget({
      clock: this.opts.clock ?? systemClock,
      client: key.replace(':', ' ').replace(/^token .*/, 'token'),
      ...(this.opts.rateLimitReserve !== undefined ? { reserve: this.opts.rateLimitReserve } : {}),
      ...(this.opts.onResponse ? { onResponse: this.opts.onResponse } : {}),
    });
    const octokit = new GitHubOctokit({
      baseUrl: this.baseUrl,
      userAgent: 'greenline',
      request: {
        fetch: budget.wrapFetch(
          withDeadline(
            this.opts.fetch ?? ((input, init) => fetch(input, init)),
            this.opts.requestTimeoutMs ?? DEFAULT_FORGE_REQUEST_TIMEOUT_MS,
            `GitHub (${new URL(this.baseUrl).host})`,
          ),
        ),
      },
      log: {
        debug: () => undefined,
        info: () => undefined,
        warn: (msg: string) => logger.warn(msg),
        error: (msg: string) => logger.error(msg),
      },
      throttle: {
        ...throttle,
        // The throttling plugin's limiters are shared by the process and keyed by this id: each client
        // (installation or token) gets its own lane of writes, as GitHub limits each one on its own.
        id: key,
        onRateLimit: onLimit('rate limit'),
        onSecondaryRateLimit: onLimit('secondary rate limit'),
      },
      // 409 (head changed), 429 (the throttling plugin's) and the other 4xx answers are final.
      retry: { doNotRetry: [400, 401, 403, 404, 409, 410, 422, 429, 451], ...this.opts.retry },
      ...extra,
    });
    budget.install(octokit);
    // Outermost (registered after the plugins and the App authentication): a request that still has no
    // answer after the retries, token requests included, reaches the caller as ForgeUnreachableError.
    // An installation's token that GitHub no longer takes (401: the App was uninstalled) is dropped with
    // its client: the next request of its repositories gets a new token, or finds the installation gone.
    octokit.hook.wrap('request', async (request, options) => {
      try {
        return await request(options);
      } catch (err) {
        if (key.startsWith('installation:') && hasStatus(err, 401) && this.byInstallation.get(key) === octokit)
          this.byInstallation.delete(key);
        throw unreachableOrSelf(err);
      }
    });
    this.byInstallation.set(key, octokit);
    return octokit;
  }
}
