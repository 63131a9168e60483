/**
 * CI identity over real HTTP: a workflow's OIDC ID token, from a local issuer whose key set a real
 * HTTP server serves, presented where an API token goes (v1 `x-api-token`, v2 `Authorization:
 * Bearer`). It uploads impacted targets and reports statuses on the repository it names, and every
 * refusal says why.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { oidcSettingsOf } from '../../src/app/admin/oidc-verifier.js';
import type { Json } from '../helpers/json.js';
import { startOidcIssuer, type LocalIssuer, type SignOptions } from '../helpers/oidc-issuer.js';
import { findImpactedTargets } from '../../src/store/impacted-targets.js';
import { findRepo } from '../../src/store/repos.js';
import { type ApiHarness, listenApiHarness, REPO } from './api-harness.js';

let issuer: LocalIssuer;
beforeAll(async () => {
  issuer = await startOidcIssuer();
});
afterAll(() => issuer.close());

let h: ApiHarness & { base: string };
beforeEach(async () => {
  h = await listenApiHarness({
    ciIdentity: oidcSettingsOf({ oidcIssuer: issuer.issuer, oidcAudience: 'greenline', oidcJwksUrl: null })!,
  });
  await h.t.connectRepo('acme', 'github.com/acme/api');
  await h.queueWithPrs(1);
});
afterEach(() => h.close());

/** An ID token of a run of acme/web's workflow, issued now by the test's clock. */
const idToken = (opts: Partial<SignOptions> = {}) =>
  issuer.sign({ repository: 'acme/web', now: h.t.clock.now(), ...opts });

async function post(path: string, credential: string, body: unknown): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${h.base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-token': credential },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text) };
}

const upload = (credential: string, repo = REPO) =>
  post('/v1/setImpactedTargets', credential, {
    repo,
    targetBranch: 'main',
    pr: { number: 1, sha: 'b'.repeat(40) },
    impactedTargets: ['//web:app'],
  });

const refusal = async (credential: string) => {
  const res = await upload(credential);
  return { status: res.status, code: res.body.error.code, message: res.body.error.message as string };
};

describe('an OIDC ID token', () => {
  it('uploads impacted targets and reports the status that merges the PR, on its repository', async () => {
    const jwt = await idToken();
    expect(await upload(jwt)).toEqual({ status: 200, body: {} });
    const repo = await findRepo(h.t.db, REPO.host, REPO.owner, REPO.name);
    expect(await findImpactedTargets(h.t.db, repo!.id, 1, 'b'.repeat(40))).toEqual(['//web:app']);

    expect((await post('/v1/submitPullRequest', h.token, { ...h.body(), pr: { number: 1 } })).status).toBe(200);
    await h.t.runEffects();
    const [testRunId] = h.t.ci.startedRunIds();
    const reported = await post('/v1/reportStatus', jwt, {
      repo: REPO,
      testRunId,
      context: 'greenline/ci',
      state: 'success',
    });
    expect(reported).toEqual({ status: 200, body: {} });
    await h.t.runEffects();
    const pr = await post('/v1/getSubmittedPullRequest', h.token, { ...h.body(), pr: { number: 1 } });
    expect(pr.body.state).toBe('MERGED');
  });

  it('reads what a test run of its repository changed, by the test commit, and of no other repository', async () => {
    const jwt = await idToken();
    expect((await post('/v1/submitPullRequest', h.token, { ...h.body(), pr: { number: 1 } })).status).toBe(200);
    await h.t.runEffects();
    const [start] = h.t.ci.started;
    // This forge cannot compare commits: what changed is not known, and says so with nulls.
    expect(await post('/v1/getTestRunChanges', jwt, { repo: REPO, sha: start!.sha })).toEqual({
      status: 200,
      body: {
        testRunId: start!.runId,
        testBranchSha: start!.sha,
        baseSha: null,
        changedFiles: null,
        pullRequests: null,
      },
    });
    const api = { host: 'github.com', owner: 'acme', name: 'api' };
    const other = await post('/v1/getTestRunChanges', jwt, { repo: api, sha: start!.sha });
    expect([other.status, other.body.error.code]).toEqual([403, 'INSUFFICIENT_PERMISSIONS']);
    const unknown = await post('/v1/getTestRunChanges', jwt, { repo: REPO, sha: 'd'.repeat(40) });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'TEST_RUN_NOT_FOUND']);
    const neither = await post('/v1/getTestRunChanges', jwt, { repo: REPO });
    expect(neither.status).toBe(400);
    expect(neither.body.error.message).toContain('testRunId or sha');
  });

  it('uploads impacted targets through v2 as a Bearer token', async () => {
    const lookup = await fetch(`${h.base}/v2/repositories?providerUrl=https://github.com/acme/web`, {
      headers: { authorization: `Bearer ${h.token}` },
    });
    const repositoryId = ((await lookup.json()) as Json).data[0].id;
    const res = await fetch(`${h.base}/v2/impacted-targets`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${await idToken()}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        repositoryId,
        targetBranch: 'main',
        sha: 'c'.repeat(40),
        number: 1,
        impactedTargets: ['//web:v2'],
      }),
    });
    expect(res.status, await res.text()).toBe(202);
    const repo = await findRepo(h.t.db, REPO.host, REPO.owner, REPO.name);
    expect(await findImpactedTargets(h.t.db, repo!.id, 1, 'c'.repeat(40))).toEqual(['//web:v2']);
  });

  it("acts on no other repository, even one of its repository's organization", async () => {
    const api = { host: 'github.com', owner: 'acme', name: 'api' };
    expect((await post('/v1/createQueue', h.token, { repo: api, targetBranch: 'main' })).status).toBe(200);
    h.t.forge.openPr('github.com/acme/api', { number: 1 });
    const res = await upload(await idToken(), api);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('INSUFFICIENT_PERMISSIONS');
    expect(res.body.error.message).toContain('github.com/acme/web, not github.com/acme/api');
    const repo = await findRepo(h.t.db, 'github.com', 'acme', 'api');
    expect(await findImpactedTargets(h.t.db, repo!.id, 1, 'b'.repeat(40))).toBeNull();
  });

  it('may call no other endpoint: reads, submissions and settings are refused', async () => {
    const jwt = await idToken();
    const calls: [string, unknown][] = [
      ['/v1/getQueue', h.body()],
      ['/v1/submitPullRequest', { ...h.body(), pr: { number: 1 } }],
      ['/v1/updateQueue', { ...h.body(), state: 'PAUSED' }],
      ['/v1/listQueues', {}],
    ];
    for (const [path, body] of calls) {
      const res = await post(path, jwt, body);
      expect([path, res.status, res.body.error.code]).toEqual([path, 403, 'INSUFFICIENT_PERMISSIONS']);
      expect(res.body.error.message, path).toMatch(/needs the scope/);
    }
    const v2 = await fetch(`${h.base}/v2/merge-queues`, { headers: { authorization: `Bearer ${jwt}` } });
    expect(v2.status).toBe(403);
    expect(((await v2.json()) as Json).error.code).toBe('INSUFFICIENT_PERMISSIONS');
    expect((await post('/v1/getQueue', h.token, h.body())).body.state).toBe('RUNNING');
    expect((await post('/v1/getSubmittedPullRequest', h.token, { ...h.body(), pr: { number: 1 } })).status).toBe(404);
  });

  it('is refused with the audience this server expects when issued for another', async () => {
    expect(await refusal(await idToken({ audience: 'https://github.com/acme' }))).toEqual({
      status: 401,
      code: 'OIDC_TOKEN_REFUSED',
      message:
        'The OIDC ID token is refused: its audience is "https://github.com/acme", and this server expects "greenline" (setting oidcAudience); request the token for that audience, e.g. core.getIDToken(\'greenline\')',
    });
  });

  it('is refused once expired, saying when it expired', async () => {
    const jwt = await idToken();
    h.t.clock.advance(5 * 60_000 + 31_000); // five minutes of validity and 30 s of tolerance
    expect(await refusal(jwt)).toEqual({
      status: 401,
      code: 'OIDC_TOKEN_REFUSED',
      message: `The OIDC ID token is refused: it expired at ${new Date(Date.UTC(2026, 0, 1, 0, 5)).toISOString().replace('.000Z', 'Z')}; request a new ID token right before the call`,
    });
  });

  it('is accepted within the clock tolerance after its expiry', async () => {
    const jwt = await idToken();
    h.t.clock.advance(5 * 60_000 + 20_000);
    expect((await upload(jwt)).status).toBe(200);
  });

  it('is refused when signed with a key the issuer does not list', async () => {
    expect(await refusal(await idToken({ key: 'unlisted' }))).toEqual({
      status: 401,
      code: 'OIDC_TOKEN_REFUSED',
      message: `The OIDC ID token is refused: it is signed with key "greenline-test-key-2", which the issuer's key set ${issuer.jwksUrl} does not hold`,
    });
  });

  it('is refused when its signature does not match the listed key it names', async () => {
    expect(await refusal(await idToken({ key: 'impostor' }))).toEqual({
      status: 401,
      code: 'OIDC_TOKEN_REFUSED',
      message: `The OIDC ID token is refused: its signature does not match key "greenline-test-key-1" of ${issuer.jwksUrl}: the token was altered or forged`,
    });
  });

  it('is refused when another issuer issued it', async () => {
    expect(await refusal(await idToken({ issuer: 'https://gitlab.example.com' }))).toEqual({
      status: 401,
      code: 'OIDC_TOKEN_REFUSED',
      message: `The OIDC ID token is refused: it was issued by "https://gitlab.example.com", and this server accepts ID tokens of ${issuer.issuer} only (setting oidcIssuer)`,
    });
  });

  it('is refused when its claims were altered after signing', async () => {
    const [header, , signature] = (await idToken()).split('.');
    const claims = Buffer.from(
      JSON.stringify({ iss: issuer.issuer, aud: 'greenline', repository: 'acme/api', exp: 2e9 }),
    ).toString('base64url');
    expect((await refusal(`${header}.${claims}.${signature}`)).message).toContain('its signature does not match');
  });

  it('is refused when its repository is not connected', async () => {
    expect(await refusal(await idToken({ repository: 'acme/unknown' }))).toEqual({
      status: 401,
      code: 'OIDC_TOKEN_REFUSED',
      message:
        'The OIDC ID token is refused: its repository github.com/acme/unknown is not connected to this server; connect it first: greenline repo connect github.com/acme/unknown --org <org> --forge github',
    });
  });

  it('names its repository in any letter case', async () => {
    expect((await upload(await idToken({ repository: 'ACME/Web' }))).status).toBe(200);
  });

  it('is refused on v2 too, as INVALID_TOKEN with the reason', async () => {
    const res = await fetch(`${h.base}/v2/merge-queues`, {
      headers: { authorization: `Bearer ${await idToken({ audience: 'other' })}` },
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({
      error: { code: 'INVALID_TOKEN', message: expect.stringContaining('its audience is "other"') },
    });
  });

  it('is checked against a key set read once and kept', async () => {
    const before = issuer.jwksRequests;
    for (let i = 0; i < 3; i++) expect((await upload(await idToken())).status).toBe(200);
    expect(issuer.jwksRequests - before).toBe(1);
  });
});

describe('an ID token the server cannot check', () => {
  it('answers 502 OIDC_KEYS_UNAVAILABLE when the key set cannot be read', async () => {
    const unreachable = await startOidcIssuer();
    await unreachable.close();
    const other = await listenApiHarness({
      ciIdentity: { issuer: unreachable.issuer, audience: 'greenline', jwksUrl: unreachable.jwksUrl },
    });
    try {
      const jwt = await unreachable.sign({ repository: 'acme/web', now: other.t.clock.now() });
      const res = await fetch(`${other.base}/v1/setImpactedTargets`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-token': jwt },
        body: JSON.stringify({
          repo: REPO,
          targetBranch: 'main',
          pr: { number: 1, sha: 'b'.repeat(40) },
          impactedTargets: [],
        }),
      });
      expect(res.status).toBe(502);
      const { error } = await res.json();
      expect(error.code).toBe('OIDC_KEYS_UNAVAILABLE');
      expect(error.message).toMatch(
        new RegExp(
          `^The OIDC ID token cannot be checked now: the issuer's key set could not be read from ${unreachable.jwksUrl}: .+; retry later$`,
        ),
      );
    } finally {
      await other.close();
    }
  });

  it('is refused by a server that accepts none, saying to send an API token', async () => {
    const plain = await listenApiHarness();
    try {
      const jwt = await issuer.sign({ repository: 'acme/web', now: plain.t.clock.now() });
      const res = await fetch(`${plain.base}/v1/getQueue`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-token': jwt },
        body: JSON.stringify({ repo: REPO, targetBranch: 'main' }),
      });
      expect(res.status).toBe(401);
      expect((await res.json()).error.message).toBe(
        'The OIDC ID token is refused: this server accepts no ID tokens (its setting oidcIssuer is empty); send an API token instead',
      );
    } finally {
      await plain.close();
    }
  });
});
