/** The service's changes as the audit log records them (src/audit/audit-log.ts): who, what, where. */
import type { AuditAction, AuditCaller, AuditChange, AuditEntry, AuditTarget } from '../../audit/audit-log.js';
import type { RepoRow } from '../../store/database.js';
import { repoRefOf, repoSlug } from '../repo-binding.js';
import type { AuthContext } from '../request-scope.js';

/** The repository (and queue) a change concerns, as the log names and filters them. */
export const placeOf = (repo: RepoRow, targetBranch?: string): AuditTarget => ({
  repo: repoSlug(repoRefOf(repo)),
  ...(targetBranch !== undefined ? { targetBranch } : {}),
});

/** Who made a change: the caller's context, or (a fork PR's CI) what stands for it. */
export type Changer = Pick<AuthContext, 'orgId' | 'orgName'> & AuditCaller;

/** The caller's change. */
export function noteOf(
  ctx: Changer,
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
