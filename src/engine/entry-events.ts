/**
 * Events about one PR: submit, cancel, restart (contract §2.1–§2.3, §5.3) and what the forge reports
 * about it (§6.10): pushes, base changes, closing, drafts, merges outside the queue, impacted targets.
 */
import type { Draft } from './draft.js';
import { tryDirectMerge } from './direct-merge.js';
import { labelsChanged } from './freeze.js';
import { parsePriority } from './priority.js';
import { sameUnmergeable } from './readiness.js';
import { membersOf } from './runs.js';
import { applyTargetMove } from './target.js';
import { move } from './transitions.js';
import { isTerminal, RESTARTABLE_STATES, type EngineEvent, type Entry, type PrInfo, type Rejection } from './types.js';
import { restartGroup } from './validity.js';

type Ev<K extends EngineEvent['kind']> = Extract<EngineEvent, { kind: K }>;

const invalid = (message: string): Rejection => ({ code: 'INVALID_EVENT', message });

/** The PR's entry when it is in the queue (non-terminal), else the rejection to give. */
function queued(d: Draft, prNumber: number): Entry | Rejection {
  const e = d.entry(prNumber);
  if (!e || isTerminal(e.state)) {
    return { code: 'PR_NOT_IN_QUEUE', message: `PR #${prNumber} is not in the queue${e ? ` (it is ${e.state})` : ''}` };
  }
  return e;
}

const isRejection = (x: Entry | Rejection): x is Rejection => 'code' in x;

/** The entry with the forge's mergeability of `pr` and why it is not mergeable (absent when it is). */
function withMergeability(e: Entry, pr: PrInfo): Entry {
  const { unmergeable: _old, ...rest } = e;
  return { ...rest, mergeability: pr.mergeability, ...(pr.unmergeable ? { unmergeable: pr.unmergeable } : {}) };
}

const isMerging = (d: Draft, prNumber: number): boolean =>
  d.internal.merge?.prs.some((p) => p.number === prNumber) ?? false;

/**
 * Submit: a new entry, or a new trip of a terminal one (same id, trip + 1, timeline kept), in
 * NOT_READY. Submitting a PR already in the queue updates its priority, noBatch and commit message in place. A PR
 * the forge reports already in its base branch is refused (PR_ALREADY_MERGED).
 */
export function onSubmit(d: Draft, ev: Ev<'submit'>): Rejection | null {
  const pr = ev.pr;
  if (!Number.isInteger(pr.number) || pr.number < 0)
    return invalid(`PR number must be a non-negative integer, got ${pr.number}`);
  if (!pr.headSha || !pr.baseBranch) return invalid(`PR #${pr.number} needs a head sha and a base branch`);
  const priority = parsePriority(ev.priority);
  if (!priority.ok) return invalid(priority.message);
  const existing = d.entry(pr.number);
  if (existing && !isTerminal(existing.state)) {
    const given = ev.priority !== undefined && ev.priority !== null;
    const next: Entry = {
      ...(existing.state === 'NOT_READY' ? withMergeability(existing, pr) : existing),
      ...(given
        ? { priorityValue: priority.value, priorityName: priority.name, skipTheLine: priority.value === 0 }
        : {}),
      ...(ev.noBatch !== undefined ? { noBatch: ev.noBatch } : {}),
      ...(ev.forceEnqueued ? { forceEnqueued: true } : {}),
      ...(ev.commitMessage !== undefined ? { commitMessage: ev.commitMessage } : {}),
      ...(labelsChanged(existing, pr) ? { labels: [...pr.labels!] } : {}),
      title: pr.title,
      author: pr.author,
    };
    const changed =
      !sameUnmergeable(existing, next) ||
      Object.keys(next).some((k) => next[k as keyof Entry] !== existing[k as keyof Entry]);
    if (changed) d.putEntry(next);
    return null;
  }
  // Queued again, it could only add an empty commit: refused, so that the caller learns it at once.
  if (pr.alreadyInBase) {
    return {
      code: 'PR_ALREADY_MERGED',
      message:
        `PR #${pr.number} is already merged: merging its head ${pr.headSha.slice(0, 7)} into ${pr.baseBranch} changes nothing, ` +
        'its changes are there already. Nothing was queued; push new commits to the PR to queue it again',
    };
  }
  const fresh: Entry = {
    id: existing?.id ?? ev.entryId,
    prNumber: pr.number,
    trip: existing ? existing.trip + 1 : 1,
    state: existing?.state ?? 'NOT_READY',
    stateChangedAt: ev.at,
    submittedAt: ev.at,
    admittedAt: null,
    headSha: pr.headSha,
    baseBranch: pr.baseBranch,
    ...(pr.headBranch !== undefined ? { headBranch: pr.headBranch } : {}),
    ...(pr.labels !== undefined ? { labels: [...pr.labels] } : {}),
    title: pr.title,
    author: pr.author,
    mergeability: pr.mergeability,
    ...(pr.unmergeable ? { unmergeable: pr.unmergeable } : {}),
    priorityValue: priority.value,
    priorityName: priority.name,
    usedDefaultPriorityName: priority.usedDefault ? priority.name : null,
    skipTheLine: priority.value === 0,
    noBatch: ev.noBatch ?? false,
    forceEnqueued: ev.forceEnqueued ?? false,
    ...(ev.commitMessage !== undefined ? { commitMessage: ev.commitMessage } : {}),
    impactedTargets: null,
    runId: null,
    verifiedByTestRun: null,
    lastReason: ev.reason,
    timeline: existing?.timeline ?? [],
    ...(existing?.evidence ? { evidence: existing.evidence } : {}),
  };
  tryDirectMerge(d, move(d, fresh, 'NOT_READY', ev.reason, existing ? {} : { from: null }), pr);
  return null;
}

/** Cancel (contract §5.3): any non-terminal state; the group's others restart without it. */
export function onCancel(d: Draft, ev: Ev<'cancel'>): Rejection | null {
  const e = queued(d, ev.prNumber);
  if (isRejection(e)) return e;
  if (isMerging(d, ev.prNumber)) {
    return {
      code: 'PR_BEING_MERGED',
      message: `PR #${ev.prNumber} is being merged right now and can no longer be cancelled`,
    };
  }
  move(d, e, 'CANCELLED', ev.reason, ev.detail !== undefined ? { detail: ev.detail } : {});
  return null;
}

/**
 * Restart (contract §5.3): TESTING → abort and test again in place; PENDING_FAILURE → test again
 * without waiting for blame. The whole group restarts; nobody else is disturbed.
 */
export function onRestart(d: Draft, ev: Ev<'restart'>): Rejection | null {
  const e = queued(d, ev.prNumber);
  if (isRejection(e)) return e;
  if (!RESTARTABLE_STATES.includes(e.state)) {
    return {
      code: 'RESTART_NOT_ALLOWED',
      message: `PR #${ev.prNumber} is ${e.state}: only ${RESTARTABLE_STATES.join(' and ')} PRs can be restarted`,
    };
  }
  const run = d.run(e.runId);
  const members = run ? membersOf(d, run).filter((m) => m.state === e.state) : [e];
  restartGroup(d, run, members, ev.reason);
  return null;
}

/** The forge's current view of a PR: a new head cancels (PR_PUSHED_TO), so does a new base once admitted. */
export function onPrObserved(d: Draft, ev: Ev<'prObserved'>): Rejection | null {
  const e = queued(d, ev.pr.number);
  if (isRejection(e)) return e;
  if (isMerging(d, e.prNumber)) return null; // the merge result tells what happened to it
  const pr = ev.pr;
  if (pr.headSha !== e.headSha) {
    move(d, e, 'CANCELLED', 'PR_PUSHED_TO', { detail: `new head ${pr.headSha}` });
  } else if (pr.baseBranch !== e.baseBranch && e.state !== 'NOT_READY') {
    move(d, e, 'CANCELLED', 'PR_BASE_BRANCH_CHANGED', { detail: `base is now ${pr.baseBranch}` });
  } else {
    let next = e;
    const headBranch = pr.headBranch ?? e.headBranch;
    if (
      pr.baseBranch !== e.baseBranch ||
      pr.title !== e.title ||
      pr.author !== e.author ||
      pr.mergeability !== e.mergeability ||
      !sameUnmergeable(e, pr) ||
      headBranch !== e.headBranch ||
      labelsChanged(e, pr)
    ) {
      // A stacked PR waits in NOT_READY until its base becomes the queue's branch.
      next = {
        ...withMergeability(e, pr),
        baseBranch: pr.baseBranch,
        title: pr.title,
        author: pr.author,
        ...(headBranch !== undefined ? { headBranch } : {}),
        ...(pr.labels !== undefined ? { labels: [...pr.labels] } : {}),
      };
      d.putEntry(next);
    }
    tryDirectMerge(d, next, pr);
  }
  return null;
}

export function onPrGone(d: Draft, ev: Ev<'prClosed'> | Ev<'prConvertedToDraft'>): Rejection | null {
  const e = queued(d, ev.prNumber);
  if (isRejection(e)) return e;
  if (isMerging(d, e.prNumber))
    return invalid(`PR #${ev.prNumber} is being merged right now; its merge result decides`);
  move(d, e, 'CANCELLED', ev.kind === 'prClosed' ? 'PR_CLOSED' : 'PR_CONVERTED_TO_DRAFT');
  return null;
}

/** Merged outside the queue → MERGED (MANUAL_MERGE); runs that included it restart. */
export function onPrMergedOutside(d: Draft, ev: Ev<'prMergedOutside'>): Rejection | null {
  const e = queued(d, ev.prNumber);
  if (isRejection(e)) return e;
  if (isMerging(d, e.prNumber)) {
    // Maybe our own merge, seen before its result: the result decides (merging.ts).
    if (!d.internal.deferredMergedOutside.includes(e.prNumber)) d.internal.deferredMergedOutside.push(e.prNumber);
    return null;
  }
  move(d, e, 'MERGED', 'MANUAL_MERGE');
  return null;
}

/** Impacted targets for the entry's current head (last upload wins, contract §6.10). */
export function onImpactedTargets(d: Draft, ev: Ev<'impactedTargets'>): Rejection | null {
  const e = queued(d, ev.prNumber);
  if (isRejection(e)) return e;
  if (ev.headSha !== e.headSha) {
    return invalid(`impacted targets are for ${ev.headSha}, but PR #${ev.prNumber} is queued at ${e.headSha}`);
  }
  const t = ev.targets;
  if (t !== 'ALL' && !(Array.isArray(t) && t.every((x) => typeof x === 'string'))) {
    return invalid('impacted targets must be "ALL" or a list of target names');
  }
  if (JSON.stringify(t) !== JSON.stringify(e.impactedTargets) || ev.why !== e.impactedTargetsWhy) {
    const { impactedTargetsWhy: _before, ...rest } = e;
    d.putEntry({
      ...rest,
      impactedTargets: t === 'ALL' ? 'ALL' : [...t],
      ...(ev.why ? { impactedTargetsWhy: ev.why } : {}),
    });
  }
  return null;
}

/** The target branch was seen at `sha`; while a merge is in flight the sighting waits for its result. */
export function onTargetMoved(d: Draft, ev: Ev<'targetMoved'>): Rejection | null {
  if (typeof ev.sha !== 'string' || ev.sha.length === 0) return invalid('targetMoved needs a sha');
  if (ev.sha === d.targetSha) return null;
  if (d.internal.merge) {
    d.internal.deferredTargetSha = ev.sha;
    return null;
  }
  applyTargetMove(d, ev.sha);
  return null;
}
