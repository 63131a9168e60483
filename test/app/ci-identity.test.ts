/**
 * The caller an OIDC ID token stands for: the organization its repository is connected to, named
 * after the workflow run; and the repositories it cannot stand for.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Credentials } from '../../src/app/admin/credentials.js';
import { claimsOf, GITHUB_ACTIONS_ISSUER } from '../../src/app/admin/ci-claims.js';
import { looksLikeJwt } from '../../src/app/admin/ci-identity.js';
import { generateToken } from '../../src/app/admin/tokens.js';
import { ensureOrg } from '../../src/app/admin/org-admin.js';
import { oidcSettingsOf } from '../../src/app/admin/oidc-verifier.js';
import { insertRepo } from '../../src/store/repos.js';
import { startOidcIssuer, type LocalIssuer } from '../helpers/oidc-issuer.js';
import { createTestService, type TestService } from '../helpers/service.js';

let issuer: LocalIssuer;
beforeAll(async () => {
  issuer = await startOidcIssuer();
});
afterAll(() => issuer.close());

let t: TestService;
beforeEach(async () => {
  t = await createTestService({
    ciIdentity: { issuer: issuer.issuer, audience: 'greenline', jwksUrl: issuer.jwksUrl },
  });
});
afterEach(() => t.close());

describe('an ID token', () => {
  it("acts in its repository's organization, named after its run, limited to that repository", async () => {
    await t.createOrg('acme');
    const repo = await t.connectRepo('acme', 'github.com/Acme/Web');
    const jwt = await issuer.sign({
      repository: 'acme/web',
      now: t.clock.now(),
      claims: { workflow: 'Build and test', run_id: '9182', actor: 'mona' },
    });
    expect(await t.service.authenticate(jwt)).toEqual({
      orgId: repo.org_id,
      orgName: 'acme',
      tokenId: 'oidc:github.com/acme/web',
      tokenName: 'workflow "Build and test" run 9182 by mona (pull_request on refs/heads/main)',
      scopes: new Set(['impacted_targets:write', 'test_runs:report']),
      repos: ['github.com/acme/web'],
      expiresAt: t.clock.now() + 5 * 60_000,
    });
  });

  it("reads the claims of its issuer's table: GitHub Actions' for GitHub Actions and for an issuer not listed", async () => {
    expect(claimsOf(GITHUB_ACTIONS_ISSUER)).toEqual({
      repositoryHost: 'github.com',
      forge: 'github',
      repository: 'repository',
      ref: 'ref',
      workflow: 'workflow',
      run: 'run_id',
      event: 'event_name',
      actor: 'actor',
    });
    expect(claimsOf(issuer.issuer)).toEqual(claimsOf(GITHUB_ACTIONS_ISSUER));
    await t.createOrg('acme');
    await t.connectRepo('acme', 'github.com/acme/web');
    // A run named by the claims there are: a push to a tag, no workflow name.
    const jwt = await issuer.sign({
      repository: 'acme/web',
      now: t.clock.now(),
      claims: { workflow: undefined, event_name: 'push', ref: 'refs/tags/v1' },
    });
    expect((await t.service.authenticate(jwt))?.tokenName).toBe('workflow run 7001 by octocat (push on refs/tags/v1)');
  });

  it('is refused when its repository is connected to several organizations', async () => {
    await t.createOrg('acme');
    const web = await t.connectRepo('acme', 'github.com/acme/web');
    // A store from before names were compared in any letter case may hold two spellings.
    const other = await ensureOrg(t.db, 'acme-fork', t.clock.now());
    await insertRepo(t.db, { ...web, id: randomUUID(), org_id: other.id, owner: 'ACME', name: 'WEB' });
    const jwt = await issuer.sign({ repository: 'acme/web', now: t.clock.now() });
    await expect(t.service.authenticate(jwt)).rejects.toThrow(
      'The OIDC ID token is refused: its repository github.com/acme/web is connected to several organizations (acme, acme-fork), so the token cannot say which one it acts in; disconnect it from all but one',
    );
  });

  it('is refused without a repository claim of the form owner/name', async () => {
    await t.createOrg('acme');
    const jwt = await issuer.sign({ repository: 'acme', now: t.clock.now() });
    await expect(t.service.authenticate(jwt)).rejects.toThrow(
      'The OIDC ID token is refused: its repository claim is "acme", not owner/name: only ID tokens of workflow runs name a repository',
    );
  });
});

describe('credentials', () => {
  it('are API tokens unless shaped like a JSON Web Token', async () => {
    const jwt = await issuer.sign({ repository: 'acme/web', now: t.clock.now() });
    expect(looksLikeJwt(jwt)).toBe(true);
    expect(looksLikeJwt(generateToken())).toBe(false);
    const asked: string[] = [];
    const credentials = new Credentials(
      {
        authenticate: async (token) => {
          asked.push(token);
          return null;
        },
      },
      null,
    );
    const token = generateToken();
    expect(await credentials.authenticate(token)).toBeNull();
    await expect(credentials.authenticate(jwt)).rejects.toThrow('this server accepts no ID tokens');
    expect(asked).toEqual([token]);
  });
});

describe('the settings', () => {
  it("read the key set at the issuer's /.well-known/jwks unless told otherwise, and none with an empty issuer", () => {
    expect(oidcSettingsOf({ oidcIssuer: 'https://issuer.example/', oidcAudience: 'gl', oidcJwksUrl: null })).toEqual({
      issuer: 'https://issuer.example/',
      audience: 'gl',
      jwksUrl: 'https://issuer.example/.well-known/jwks',
    });
    expect(
      oidcSettingsOf({
        oidcIssuer: 'https://issuer.example',
        oidcAudience: 'gl',
        oidcJwksUrl: 'https://keys.example/k',
      })?.jwksUrl,
    ).toBe('https://keys.example/k');
    expect(oidcSettingsOf({ oidcIssuer: '', oidcAudience: 'gl', oidcJwksUrl: null })).toBeNull();
  });
});
