/**
 * CI identity without a stored secret: a workflow run's OIDC ID token (oidc-verifier.ts) is the
 * credential of the repository in its `repository` claim, and of nothing else. It may upload impacted
 * targets and report CI statuses on that repository (the scopes impacted_targets:write and
 * test_runs:report, without read); every other endpoint refuses it. The repository must be connected,
 * to exactly one organization, which the call then acts in.
 *
 * Its caller is named after the run, for who-did-what: token id `oidc:github.com/acme/web`, name
 * `workflow "CI" run 1234 by octocat (pull_request on refs/heads/main)`. Which claim says what, and
 * on which host the repository is, is the issuer's claims table (ci-claims.ts).
 */
import type { Kysely } from 'kysely';
import type { JWTPayload } from 'jose';
import { ServiceError } from '../../lib/errors.js';
import type { Clock } from '../../lib/clock.js';
import type { Database } from '../../store/database.js';
import { reposNamedWithOrg } from '../../store/repos.js';
import type { AuthContext } from '../request-scope.js';
import type { Scope } from '../scopes.js';
import { claimsOf, type CiClaims } from './ci-claims.js';
import { OidcVerifier, type OidcSettings } from './oidc-verifier.js';

/** What an ID token may do: upload impacted targets and report statuses, nothing else (no read). */
export const CI_IDENTITY_SCOPES: ReadonlySet<Scope> = new Set<Scope>(['impacted_targets:write', 'test_runs:report']);

/** The prefix of the caller id of a CI identity: `oidc:` + the repository. */
const CI_IDENTITY_ID_PREFIX = 'oidc:';

/** Whether a presented credential is shaped like a JSON Web Token (three base64url parts); API tokens never are. */
export const looksLikeJwt = (credential: string): boolean => /^[\w-]+\.[\w-]+\.[\w-]*$/.test(credential);

const refused = (detail: string) => new ServiceError('OIDC_TOKEN_REFUSED', detail);

const claim = (payload: JWTPayload, name: string): string | undefined => {
  const value = payload[name];
  return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
};

/** `workflow "CI" run 1234 by octocat (pull_request on refs/heads/main)`, from the claims there are. */
function runName(payload: JWTPayload, claims: CiClaims): string {
  const [workflow, runId, actor, event, ref] = [
    claims.workflow,
    claims.run,
    claims.actor,
    claims.event,
    claims.ref,
  ].map((name) => claim(payload, name));
  const started = [event, ...(ref === undefined ? [] : [`on ${ref}`])].filter((part) => part !== undefined).join(' ');
  return [
    workflow === undefined ? 'workflow' : `workflow ${JSON.stringify(workflow)}`,
    ...(runId === undefined ? [] : [`run ${runId}`]),
    ...(actor === undefined ? [] : [`by ${actor}`]),
    ...(started === '' ? [] : [`(${started})`]),
  ].join(' ');
}

export class CiIdentity {
  private readonly verifier: OidcVerifier;
  private readonly claims: CiClaims;

  constructor(
    private readonly db: Kysely<Database>,
    settings: OidcSettings,
    clock: Clock,
  ) {
    this.verifier = new OidcVerifier(settings, clock);
    this.claims = claimsOf(settings.issuer);
  }

  /** The caller an ID token stands for; throws a ServiceError saying why the token is refused. */
  async authenticate(jwt: string): Promise<AuthContext> {
    const payload = await this.verifier.verify(jwt);
    const { repositoryHost, forge } = this.claims;
    const repository = claim(payload, this.claims.repository);
    const [owner, name, ...rest] = repository?.split('/') ?? [];
    if (!owner || !name || rest.length > 0)
      throw refused(
        `its ${this.claims.repository} claim is ${JSON.stringify(repository ?? null)}, not owner/name: only ID tokens of workflow runs name a repository`,
      );
    const slug = `${repositoryHost}/${owner}/${name}`.toLowerCase();
    const repos = await reposNamedWithOrg(this.db, repositoryHost, owner, name);
    const orgs = [...new Map(repos.map((r) => [r.org_id, r.org_name])).values()];
    if (orgs.length === 0)
      throw refused(
        `its repository ${slug} is not connected to this server; connect it first: greenline repo connect ${slug} --org <org> --forge ${forge}`,
      );
    if (orgs.length > 1)
      throw refused(
        `its repository ${slug} is connected to several organizations (${orgs.join(', ')}), so the token cannot say which one it acts in; disconnect it from all but one`,
      );
    const repo = repos[0]!;
    return {
      orgId: repo.org_id,
      orgName: repo.org_name,
      tokenId: `${CI_IDENTITY_ID_PREFIX}${slug}`,
      tokenName: runName(payload, this.claims),
      scopes: CI_IDENTITY_SCOPES,
      repos: [slug],
      ...(payload.exp === undefined ? {} : { expiresAt: payload.exp * 1000 }),
    };
  }
}
