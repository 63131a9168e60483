/**
 * What a credential may do: the scopes of API tokens (following Trunk's v2 key permissions, and
 * beyond them) and the repositories a token may be limited to. Each endpoint declares the scopes it
 * accepts (any one of them); what depends on a request's body (a priority, skipping batching) is
 * checked by the service. docs/security.md has the table of endpoints per scope.
 */
import { ServiceError } from '../lib/errors.js';

/** What of a caller (request-scope.ts AuthContext) says what it may do. */
interface Caller {
  orgName: string;
  scopes: ReadonlySet<Scope>;
  /** Lower-case `host/owner/name`; absent: every repository of the organization. */
  repos?: readonly string[];
}

/** Every scope, with what it allows (shown by `greenline token create --help` and its errors). */
export const SCOPE_DESCRIPTIONS = {
  read: 'every read: queues, pull requests, test runs, metrics, streams',
  'pull_requests:write': 'submit, cancel and restart pull requests, upload impacted targets',
  'pull_requests:priority': 'set the priority of a pull request (with pull_requests:write to submit)',
  'pull_requests:skip_batching': 'submit a pull request that is tested alone (noBatch)',
  'queues:write': 'create, update, delete, pause, resume, drain and freeze queues',
  'test_runs:report': 'report CI statuses of test runs and read what they changed (reportStatus, getTestRunChanges)',
  'impacted_targets:write': 'upload impacted targets (setImpactedTargets), and nothing else',
  'refs:notify': 'tell the server that branches moved (notifyRefsMoved, a post-receive hook)',
  'audit:read': 'read the audit log',
  admin: 'tokens, webhooks, notification channels, repositories, and the audit log',
} as const satisfies Record<string, string>;

export type Scope = keyof typeof SCOPE_DESCRIPTIONS;

/** Every scope, in the order of SCOPE_DESCRIPTIONS. */
export const SCOPES = Object.keys(SCOPE_DESCRIPTIONS) as readonly Scope[];

/** What a credential without limits (a token made without --scopes, the queue's own calls) has. */
export const EVERY_SCOPE: ReadonlySet<Scope> = new Set(SCOPES);

export const isScope = (value: string): value is Scope => Object.hasOwn(SCOPE_DESCRIPTIONS, value);

/**
 * The scopes a token created with `granted` has: `read` comes with every scope (a token that may
 * write may see what it writes); null (a token created without scopes, or before scopes existed)
 * has every scope.
 */
export function effectiveScopes(granted: readonly Scope[] | null): ReadonlySet<Scope> {
  if (granted === null) return EVERY_SCOPE;
  return new Set<Scope>(['read', ...granted]);
}

/** The scopes of a comma-separated list; throws naming the unknown ones and listing the valid ones. */
export function parseScopes(list: string): Scope[] {
  const names = list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const unknown = names.filter((s) => !isScope(s));
  if (unknown.length > 0)
    throw new Error(
      `Unknown scope${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}; valid scopes: ${SCOPES.join(', ')}`,
    );
  if (names.length === 0) throw new Error(`No scope given; valid scopes: ${SCOPES.join(', ')}`);
  return [...new Set(names as Scope[])];
}

/** Whether the caller has at least one of `anyOf`. */
export const hasAnyScope = (ctx: Pick<Caller, 'scopes'>, anyOf: readonly Scope[]): boolean =>
  anyOf.some((s) => ctx.scopes.has(s));

/** The refusal of a call that needs one of `anyOf`, saying how to get a token that has it. */
export function missingScope(ctx: Pick<Caller, 'orgName'>, anyOf: readonly Scope[], what: string): ServiceError {
  if (anyOf.length === 0) return new ServiceError('INSUFFICIENT_PERMISSIONS', `${what} is open to no API token`);
  const needed = anyOf.length === 1 ? `scope ${anyOf[0]}` : `one of the scopes ${anyOf.join(', ')}`;
  const org = ctx.orgName === '' ? '<org>' : ctx.orgName;
  return new ServiceError(
    'INSUFFICIENT_PERMISSIONS',
    `${what} needs the ${needed}, which this token does not have; create a token that has it: greenline token create --org ${org} --name <name> --scopes ${anyOf[0]}`,
  );
}

/** Refuses the call unless the caller has one of `anyOf`. */
export function requireScope(ctx: Caller, anyOf: readonly Scope[], what: string): void {
  if (!hasAnyScope(ctx, anyOf)) throw missingScope(ctx, anyOf, what);
}

/** Whether the caller may act on the repository `host/owner/name` (compared in lower case). */
export const repoAllowed = (ctx: Pick<Caller, 'repos'>, slug: string): boolean =>
  ctx.repos === undefined || ctx.repos.includes(slug.toLowerCase());

/** Refuses a call on a repository the caller's token is not limited to. */
export function requireRepo(ctx: Caller, slug: string): void {
  if (repoAllowed(ctx, slug)) return;
  throw new ServiceError(
    'INSUFFICIENT_PERMISSIONS',
    `This token is limited to the repositories ${ctx.repos!.join(', ')}, not ${slug}; use a token for ${slug} (greenline token create --org ${ctx.orgName === '' ? '<org>' : ctx.orgName} --name <name> --repo ${slug.toLowerCase()})`,
  );
}
