/**
 * What the fake of Gitea and Forgejo (fake-gitea-api.ts) holds and answers with: the shapes of its
 * records, the answers its operations share, and the rules every part of it applies alike.
 */

export type Json = Record<string, unknown>;
export type Permission = 'none' | 'read' | 'write' | 'admin' | 'owner';
/** A server's version as `GET /version` answers it (`1.26.1`, `1.28.0-dev-204`, Forgejo's `17.0.0-dev-38`). */
export type GiteaVersion = string;
export type StatusState = 'pending' | 'success' | 'error' | 'failure' | 'warning' | 'skipped';

export interface FakePull {
  number: number;
  title: string;
  body: string;
  user: string;
  state: 'open' | 'closed';
  merged: boolean;
  merged_at: string | null;
  merged_by: string | null;
  merge_commit_sha: string | null;
  closed_at: string | null;
  head: string;
  base: string;
  /** Label ids. */
  labels: number[];
}

export interface FakeStatus {
  id: number;
  sha: string;
  context: string;
  state: StatusState;
  description: string;
  target_url: string;
  creator: string;
  created_at: string;
}

export interface FakeComment {
  id: number;
  issue: number;
  body: string;
  user: string;
  created_at: string;
  updated_at: string;
}

export interface FakeProtection {
  rule_name: string;
  enable_status_check: boolean;
  status_check_contexts: string[];
  required_approvals?: number;
  block_on_outdated_branch?: boolean;
  /** The push allowlist: when set, only these users may push to the branches the rule protects. */
  push_allowlist?: string[];
}

export interface RecordedCall {
  method: string;
  /** Path under /api/v1 with its query, decoded: `GET /repos/acme/web/pulls/1`. */
  path: string;
  body: unknown;
  authorization: string | null;
  status: number;
}

/** An answer of the fake to an API request: its status, its JSON body and any headers. */
export interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** What a handler of an operation gets: the path parameters by name, the query, the JSON body ({} when none). */
export interface HandlerCall {
  params: Record<string, string>;
  query: URLSearchParams;
  body: Json;
}

export const ok = (body: unknown): Answer => ({ status: 200, body });
export const NOT_ADMIN: Answer = {
  status: 403,
  body: { message: 'user should be an owner or a collaborator with admin write of a repository', url: '' },
};
export const NOT_FOUND: Answer = { status: 404, body: { message: "The target couldn't be found.", url: '' } };
export const PERMISSIONS: Permission[] = ['none', 'read', 'write', 'admin', 'owner'];
export const WRITE = PERMISSIONS.indexOf('write');
export const ADMIN = PERMISSIONS.indexOf('admin');

export const ZERO = '0000000000000000000000000000000000000000';
/** The forge's own signature, on the commits it makes. */
export const GITEA = { name: 'Gitea', email: 'noreply@gitea.test' };
/** The title prefixes that make a pull request a draft. */
export const WIP = /^\s*(WIP:|\[WIP\])/i;
export const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** `page` (1-based) and `limit` (default 30, at most 50: larger limits are cut down) of a list request. */
export function pageOf(query: URLSearchParams): { page: number; limit: number } {
  return {
    limit: Math.min(Math.max(Number(query.get('limit') ?? 30) || 30, 1), 50),
    page: Math.max(Number(query.get('page') ?? 1) || 1, 1),
  };
}

/** A protection rule's glob (`*` within a path segment, `**` across) matched against a branch name. */
export function ruleMatches(rule: string, branch: string): boolean {
  const re = rule
    .split('**')
    .map((part) =>
      part
        .split('*')
        .map((lit) => lit.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*'),
    )
    .join('.*');
  return new RegExp(`^${re}$`).test(branch);
}
