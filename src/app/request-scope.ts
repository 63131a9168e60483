/** Who is calling and which queue a call addresses: the first two arguments of most service calls. */
import type { AuditSource } from '../audit/audit-log.js';
import type { RepoRef } from '../engine/types.js';
import type { QueueRow, RepoRow } from '../store/database.js';
import type { Scope } from './scopes.js';

/** Who is calling: resolved from the x-api-token header. */
export interface AuthContext {
  orgId: string;
  orgName: string;
  tokenId: string;
  /** The token's name, which says who cancelled a PR; absent for calls not made with a token. */
  tokenName?: string;
  /** What the caller may do (app/scopes.ts): a token's scopes with what they imply. */
  scopes: ReadonlySet<Scope>;
  /** The repositories (`host/owner/name`, lower case) the caller may act on; absent: all of its org's. */
  repos?: readonly string[];
  /** When the token stops being valid (ms); absent: never. */
  expiresAt?: number;
  /** Where the request came from (client address, user agent, x-source), for the audit log; set by the API's auth hooks. */
  source?: AuditSource;
  /** The forge user who gave a comment command or set a label, when the call is theirs (the audit log's actor). */
  forgeUser?: string;
}

export interface QueueKey {
  repo: RepoRef;
  targetBranch: string;
}

/**
 * A queue already read within the caller's organization in the same request (the v2 API addresses
 * queues and pull requests by id): what a write to it needs of its row.
 */
export interface ResolvedQueue {
  repo: RepoRow;
  queue: Pick<QueueRow, 'id' | 'target_branch' | 'target_sha' | 'version'>;
}

/** The queue a call addresses: by repository and branch, or as read moments ago in the same request. */
export type QueueTarget = QueueKey | ResolvedQueue;
