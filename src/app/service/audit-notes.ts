/** The service's changes as the audit log records them (src/audit/audit-log.ts): who, what, where. */
import type { AuditAction, AuditChange, AuditEntry, AuditTarget } from '../../audit/audit-log.js';
import type { RepoRow } from '../../store/database.js';
import { repoRefOf, repoSlug } from '../repo-binding.js';
import type { AuthContext } from '../request-scope.js';

/** The repository (and queue) a change concerns, as the log names and filters them. */
export const placeOf = (repo: RepoRow, targetBranch?: string): AuditTarget => ({
  repo: repoSlug(repoRefOf(repo)),
  ...(targetBranch !== undefined ? { targetBranch } : {}),
});

/** The caller's change. */
export function noteOf(
  ctx: AuthContext,
  at: number,
  action: AuditAction,
  target: AuditTarget,
  changes?: Record<string, AuditChange>,
): AuditEntry {
  return {
    orgId: ctx.orgId,
    at,
    by: ctx,
    action,
    target: { ...(ctx.orgName ? { org: ctx.orgName } : {}), ...target },
    ...(changes ? { changes } : {}),
  };
}
