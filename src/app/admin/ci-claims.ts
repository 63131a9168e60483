/**
 * What the ID tokens of an OIDC issuer say, claim by claim (ci-identity.ts): which claim names the
 * repository, and where such repositories live (their host, the forge they are connected with); the
 * git ref; the workflow and its run; the event that started the run; who started it. One table per
 * issuer: GitHub Actions' is the only one so far, and it is also the table of an issuer not listed
 * (the setting `oidcIssuer` names any issuer; one not listed must mint tokens in GitHub Actions' shape).
 */
import type { RepoBinding } from '../../forge/port.js';

export interface CiClaims {
  /** The host of the repositories the repository claim names. */
  repositoryHost: string;
  /** The forge those repositories are connected with (`greenline repo connect --forge`). */
  forge: RepoBinding['forge'];
  /** The claim naming the repository as `owner/name`. */
  repository: string;
  /** The claim naming the git ref the run was started for (`refs/heads/main`). */
  ref: string;
  /** The claims naming the workflow, and its run. */
  workflow: string;
  run: string;
  /** The claim naming the event that started the run (`pull_request`). */
  event: string;
  /** The claim naming who started the run. */
  actor: string;
}

/** GitHub Actions' issuer (the default of `oidcIssuer`). */
export const GITHUB_ACTIONS_ISSUER = 'https://token.actions.githubusercontent.com';

/** GitHub Actions' claims (docs.github.com, "About security hardening with OpenID Connect"). */
const GITHUB_ACTIONS: CiClaims = {
  repositoryHost: 'github.com',
  forge: 'github',
  repository: 'repository',
  ref: 'ref',
  workflow: 'workflow',
  run: 'run_id',
  event: 'event_name',
  actor: 'actor',
};

const CLAIMS_OF_ISSUER: Readonly<Record<string, CiClaims>> = { [GITHUB_ACTIONS_ISSUER]: GITHUB_ACTIONS };

/** The claims table of `issuer`: its own, or GitHub Actions' for an issuer not listed. */
export const claimsOf = (issuer: string): CiClaims => CLAIMS_OF_ISSUER[issuer] ?? GITHUB_ACTIONS;
