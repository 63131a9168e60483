/**
 * Test branch names: `<prefix>/pr-<N>[-<M>…]/<run id>`. The engine names a run's branch; the takeover's
 * reconcile (app/executor/test-branch-reconcile.ts) recognises names of this form among a forge's branches.
 */
export function testBranchName(prefix: string, prNumbers: readonly number[], id: string): string {
  return `${prefix}/pr-${prNumbers.join('-')}/${id}`;
}

/** Matches exactly the names testBranchName gives under `prefix`. */
export function testBranchPattern(prefix: string): RegExp {
  const escaped = prefix.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^${escaped}/pr-\\d+(-\\d+)*/[A-Za-z0-9][A-Za-z0-9._-]*$`);
}
