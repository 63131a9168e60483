/**
 * GitLab's checks of a push, as the fake GitLab makes them: a pre-receive hook in its bare repository
 * (GitLab's own checks run there too), fed the pushing user's role and the protected branch rules.
 * A protected branch (its name or a wildcard pattern such as `release/*`) takes a push only from a
 * role its "Allowed to push and merge" allows, a force push only where "Allowed to force push" is on
 * (of several matching rules, the most permissive decides), and no deletion by git; an unprotected
 * branch takes Developer (30) or more. A refusal is GitLab's words after `GitLab:`, which git shows as `remote:`, and the ref
 * `[remote rejected] … (pre-receive hook declined)`.
 */
import type { FakeProtectedBranch } from './fake-gitlab-types.js';

export const PRE_RECEIVE = `#!/bin/sh
zero=0000000000000000000000000000000000000000
refuse() { echo "GitLab: $1" >&2; exit 1; }
while read -r old new ref; do
  case "$ref" in refs/heads/*) ;; *) continue ;; esac
  branch=\${ref#refs/heads/}
  protected=no push=no force=no
  while read -r name level allow_force; do
    [ -n "$name" ] || continue
    case "$branch" in $name) ;; *) continue ;; esac
    protected=yes
    if [ "$level" -gt 0 ] && [ "$GITLAB_ACCESS_LEVEL" -ge "$level" ]; then push=yes; fi
    [ "$allow_force" != true ] || force=yes
  done <<RULES
$GITLAB_PROTECTED_BRANCHES
RULES
  if [ $protected = no ]; then
    [ "$GITLAB_ACCESS_LEVEL" -ge 30 ] || refuse "You are not allowed to push code to this project."
    continue
  fi
  if [ "$old" != $zero ] && [ "$new" != $zero ] && ! git merge-base --is-ancestor "$old" "$new"; then
    [ $force = yes ] || refuse "You are not allowed to force push code to a protected branch on this project."
  fi
  [ "$new" != $zero ] || refuse "You can only delete protected branches using the web interface."
  [ $push = yes ] || refuse "You are not allowed to push code to protected branches on this project."
done
`;

/** The hook's environment for a push by a user of `accessLevel` (0: not a member). */
export function pushCheckEnv(accessLevel: number, rules: readonly FakeProtectedBranch[]): Record<string, string> {
  return {
    GITLAB_ACCESS_LEVEL: String(accessLevel),
    GITLAB_PROTECTED_BRANCHES: rules.map((r) => `${r.name} ${r.push} ${r.allow_force_push}`).join('\n'),
  };
}
