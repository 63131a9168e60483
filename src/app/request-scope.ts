/** Who is calling and which queue a call addresses: the first two arguments of most service calls. */
import type { RepoRef } from '../engine/types.js';

/** Who is calling: resolved from the x-api-token header. */
export interface AuthContext {
  orgId: string;
  orgName: string;
  tokenId: string;
  /** The token's name, which says who cancelled a PR; absent for calls not made with a token. */
  tokenName?: string;
}

export interface QueueKey {
  repo: RepoRef;
  targetBranch: string;
}
