/**
 * Octokit clients for the github forge: one per App installation (or one for a token), each with the
 * throttling plugin (waits out primary and secondary rate limits: 429, and 403 with retry-after or
 * x-ratelimit-reset) and the retry plugin (bounded retries of 5xx and 405 "merge already in
 * progress"). Everything goes through the `fetch` given (the global one unless injected). `allPages`
 * reads every page of a list answer.
 */
import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/core';
import { retry } from '@octokit/plugin-retry';
import { throttling, type ThrottlingOptions } from '@octokit/plugin-throttling';
import type { Logger } from 'pino';
import { ForgeUnreachableError, type RepoBinding } from '../../../ports.js';

export const GitHubOctokit = Octokit.plugin(throttling, retry);
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
   * Rate-limit handling. `maxRetries` rate-limited retries of one request (default 3), each waiting at
   * most `maxWaitSeconds` (default 120; a longer wait fails the request, and the effect is retried
   * later). The rest is passed to the throttling plugin (e.g. its `retryAfterBaseValue` and groups).
   */
  throttle?: { maxRetries?: number; maxWaitSeconds?: number } & Partial<
    Omit<ThrottlingOptions, 'onRateLimit' | 'onSecondaryRateLimit'>
  >;
  /** Retries of 5xx and 405 answers (default 3) and the base of their backoff in ms (default 1000). */
  retry?: { retries?: number; retryAfterBaseValue?: number };
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
 * becomes ForgeUnreachableError; GitHub's answers and everything else stay as they are.
 */
export function unreachableOrSelf(err: unknown): unknown {
  const e = err as { status?: unknown; message?: unknown; response?: unknown };
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

  /** The client for a repository: the token's, or its App installation's (looked up once when not configured). */
  async forRepo(repo: RepoBinding): Promise<GitHubApi> {
    const auth = this.opts.auth;
    if (auth.kind === 'token') return this.client('token', { auth: auth.token });
    const installationId = repo.installationId ?? (await this.lookUpInstallation(repo));
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
    const key = `${repo.repo.owner}/${repo.repo.name}`;
    const known = this.installationOfRepo.get(key);
    if (known !== undefined) return known;
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
          `The GitHub App (id ${auth.appId}) is not installed on ${key}: install it on the repository, or connect it with --installation-id`,
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
    const octokit = new GitHubOctokit({
      baseUrl: this.baseUrl,
      userAgent: 'greenline',
      request: this.opts.fetch ? { fetch: this.opts.fetch } : {},
      log: {
        debug: () => undefined,
        info: () => undefined,
        warn: (msg: string) => logger.warn(msg),
        error: (msg: string) => logger.error(msg),
      },
      throttle: {
        ...throttle,
        onRateLimit: onLimit('rate limit'),
        onSecondaryRateLimit: onLimit('secondary rate limit'),
      },
      // 409 (head changed), 429 (the throttling plugin's) and the other 4xx answers are final.
      retry: { doNotRetry: [400, 401, 403, 404, 409, 410, 422, 429, 451], ...this.opts.retry },
      ...extra,
    });
    // Outermost (registered after the plugins and the App authentication): a request that still has no
    // answer after the retries, token requests included, reaches the caller as ForgeUnreachableError.
    octokit.hook.wrap('request', async (request, options) => {
      try {
        return await request(options);
      } catch (err) {
        throw unreachableOrSelf(err);
      }
    });
    this.byInstallation.set(key, octokit);
    return octokit;
  }
}
