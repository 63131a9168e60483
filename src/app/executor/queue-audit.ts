/**
 * What the audit log records of a queue decision (docs/audit-log.md): the caller's change, as the
 * service described it (ApplyOptions.audit), and the queue's own decisions that matter — a PR taken out
 * because it was closed, pushed to, retargeted, made a draft or left unready too long; a PR merged
 * outside the queue; a state the queue entered by itself (a mode switch finishing). Written in the
 * decision's transaction.
 */
import type { Transaction } from 'kysely';
import { recordAudit, SYSTEM, type AuditEntry } from '../../audit/audit-log.js';
import type { EngineEvent, QueueSnapshot } from '../../engine/types.js';
import type { Database, NewTransition, QueueRow } from '../../store/database.js';
import { findRepoById } from '../../store/repos.js';
import { repoSlug } from '../repo-binding.js';
import { autoQuarantinedOf, statusFlakiness } from '../../engine/index.js';

/** The change a caller made, as recorded once the engine has applied it: a function of the queue before and after. */
export type AuditNote = (before: QueueSnapshot, after: QueueSnapshot) => AuditEntry | null;

/** Cancellations the queue decides itself, on what the forge reported or on a timer. */
const SYSTEM_CANCELS = new Set([
  'PR_CLOSED',
  'PR_PUSHED_TO',
  'PR_BASE_BRANCH_CHANGED',
  'PR_CONVERTED_TO_DRAFT',
  'NOT_READY_TIMEOUT_EXPIRED',
]);

/** Events whose state change is the caller's (recorded by the caller's note), not the queue's. */
const CALLER_STATE_EVENTS: ReadonlySet<EngineEvent['kind']> = new Set(['setState', 'updateConfig']);

/**
 * Records the queue's own decisions among a decision's transitions and state change. `cause`: the
 * event decided, or null for a group of callers' commands (submit, cancel, restart).
 */
export async function recordQueueDecisions(
  trx: Transaction<Database>,
  row: QueueRow,
  before: QueueSnapshot,
  after: QueueSnapshot,
  transitions: readonly NewTransition[],
  at: number,
  cause: EngineEvent['kind'] | null,
): Promise<void> {
  const place = { repo: repoSlug(after.repo), targetBranch: after.targetBranch };
  const entries: Omit<AuditEntry, 'orgId'>[] = [];
  for (const t of transitions) {
    if (t.to_state === 'CANCELLED' && SYSTEM_CANCELS.has(t.reason))
      entries.push({
        at,
        by: SYSTEM,
        action: 'pull_request.cancel',
        target: { ...place, pr: t.pr_number, reason: t.reason },
      });
    else if (t.to_state === 'MERGED' && t.reason === 'MANUAL_MERGE')
      entries.push({ at, by: SYSTEM, action: 'pull_request.merged_outside', target: { ...place, pr: t.pr_number } });
  }
  if (before.state !== after.state && (cause === null || !CALLER_STATE_EVENTS.has(cause)))
    entries.push({
      at,
      by: SYSTEM,
      action: 'queue.state_change',
      target: place,
      changes: { state: { from: before.state, to: after.state } },
    });
  entries.push(...quarantineChanges(before, after, at, place));
  if (entries.length === 0) return;
  const repo = await findRepoById(trx, row.repo_id);
  if (!repo) return;
  for (const e of entries) await recordAudit(trx, { ...e, orgId: repo.org_id });
}

/** The automatic quarantines the decision started or lifted (those of the setting are the caller's queue.update). */
function quarantineChanges(
  before: QueueSnapshot,
  after: QueueSnapshot,
  at: number,
  place: { repo: string; targetBranch: string },
): Omit<AuditEntry, 'orgId'>[] {
  const was = autoQuarantinedOf(before);
  const now = autoQuarantinedOf(after);
  const out: Omit<AuditEntry, 'orgId'>[] = [];
  for (const [status, q] of Object.entries(now)) {
    if (!was[status])
      out.push({ at, by: SYSTEM, action: 'queue.status_quarantine', target: { ...place, status, reason: q.reason } });
  }
  const lifted = Object.keys(was).filter((status) => !now[status]);
  if (lifted.length === 0) return out;
  const figures = new Map(statusFlakiness(after).map((s) => [s.status, s]));
  for (const status of lifted) {
    const f = figures.get(status);
    const reason =
      after.config.autoQuarantine !== 'on'
        ? 'automatic quarantine was turned off'
        : `flaky in ${pctOf(f)} of its ${f?.recentResults ?? 0} results since it was quarantined, under half the threshold`;
    out.push({ at, by: SYSTEM, action: 'queue.status_quarantine_lift', target: { ...place, status, reason } });
  }
  return out;
}

const pctOf = (f: { recentFlakyRate: number } | undefined): string =>
  `${Math.round((f?.recentFlakyRate ?? 0) * 1000) / 10}%`;
