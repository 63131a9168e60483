/**
 * Trunk's names for the engine's forge-neutral codes: what the v1 and v2 APIs and the outgoing
 * webhooks send. Inside, a merge the forge refused is `MERGE_REFUSED` whatever the forge; Trunk, which
 * merges only on GitHub, names it after GitHub's API. Every other code is Trunk's own name already.
 * (Stored rows were rewritten to the neutral names by migration 018.)
 */
const TRUNK_REASON: Readonly<Record<string, string>> = {
  MERGE_REFUSED: 'GITHUB_API_MERGE_PR_FAILED',
  DIRECT_MERGE_REFUSED: 'GITHUB_API_DIRECT_MERGE_PR_FAILED',
};

/** A reason code as Trunk spells it on the wire: `MERGE_REFUSED` → `GITHUB_API_MERGE_PR_FAILED`. */
export function trunkReason<T extends string | null>(code: T): T {
  return code === null ? code : ((TRUNK_REASON[code] ?? code) as T);
}
