/**
 * The GitHub client's deadline and rate limits against a real HTTP server that misbehaves: a server
 * that never answers (or never finishes its answer) fails the request at the deadline, without the
 * retries of a failed request, and a 429 with Retry-After that the client does not wait out is
 * ForgeRateLimitedError with the time to ask again.
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../../src/config/schema.js';
import { ForgeDeadlineError } from '../../../src/forge/forge-http.js';
import { GitHubForge, type GitHubForgeOptions } from '../../../src/forge/github/github-forge.js';
import { ForgeRateLimitedError, ForgeUnreachableError, type RepoBinding } from '../../../src/forge/port.js';
import { ManualClock } from '../../../src/lib/clock.js';
import { githubForge } from '../../../src/forge/github/definition.js';
import { forgeContext } from '../../../src/forges.js';
import { createForge } from '../../../src/server/server.js';
import { type Misbehaviour, type MisbehavingServer, startMisbehavingServer } from '../misbehaving-server.js';
import { quickLimits } from './github-harness.js';

const REF = '/repos/acme/web/git/ref/heads%2Fmain';
const repo: RepoBinding = {
  id: 'repo-1',
  org: 'acme',
  repo: { host: 'github.com', owner: 'acme', name: 'web' },
  forge: 'github',
  remote: null,
  prRefPattern: 'refs/pull/{n}/head',
  ciCommand: null,
  testBranchPrefix: 'greenline-merge',
};

describe('github client: deadline and rate limits', () => {
  let server: MisbehavingServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  async function forgeOf(how: Misbehaviour, more: Partial<GitHubForgeOptions> = {}): Promise<GitHubForge> {
    server = await startMisbehavingServer(how);
    return new GitHubForge({
      testPrTitle: DEFAULT_CONFIG.githubTestPrTitle,
      auth: { kind: 'token', token: 'ghp_test' },
      baseUrl: server.url,
      logger: pino({ level: 'silent' }),
      // Retries of failed requests without waits: a deadline that were retried would show as more requests.
      ...quickLimits(),
      requestTimeoutMs: 200,
      ...more,
    });
  }

  it.each([
    ['never answers', { kind: 'silent' }],
    ['answers the headers but never the body', { kind: 'headers-only' }],
  ] as const)('a server that %s fails the request at the deadline, once', async (_, how) => {
    const forge = await forgeOf(how);
    const err = await forge.getBranchSha(repo, 'main').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ForgeDeadlineError);
    expect(err).toBeInstanceOf(ForgeUnreachableError);
    expect((err as Error).message).toBe(`GitHub (${new URL(server!.url).host}) did not answer GET ${REF} within 0.2 s`);
    expect(server!.requests).toEqual([`GET ${REF}`]);
  });

  it('429 with Retry-After longer than the client waits: rate-limited until then', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 5, 9));
    const forge = await forgeOf(
      {
        kind: 'answer',
        status: 429,
        headers: { 'retry-after': '2' },
        body: {
          message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
          documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api',
        },
      },
      { clock, throttle: { ...quickLimits().throttle, maxWaitSeconds: 1 } },
    );
    const err = await forge.getBranchSha(repo, 'main').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ForgeRateLimitedError);
    expect(err).toMatchObject({
      retryAt: clock.now() + 2_000,
      message: expect.stringMatching(
        /^GitHub rate-limited token until 2026-01-05T09:00:02.000Z \(.*secondary rate limit/,
      ),
    });
    expect(server!.requests).toEqual([`GET ${REF}`]);
  });

  it('the server setting forgeRequestTimeoutSeconds is the deadline of the github forge', async () => {
    server = await startMisbehavingServer({ kind: 'silent' });
    const config = {
      ...DEFAULT_CONFIG,
      githubToken: 'ghp_test',
      githubBaseUrl: server.url,
      forgeRequestTimeoutSeconds: 1,
    };
    const context = forgeContext(config.dataDir, config.forgeRequestTimeoutSeconds * 1000, pino({ level: 'silent' }));
    const forge = createForge(githubForge, config, context('github'))!.port;
    await expect(forge.getBranchSha(repo, 'main')).rejects.toThrow(`did not answer GET ${REF} within 1 s`);
  });
});
