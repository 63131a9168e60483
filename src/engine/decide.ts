/**
 * The queue engine: `decide(snapshot, event, ctx) → { snapshot, effects }` or a rejection.
 *
 * Pure: no clock (time comes with each event), no randomness (ids come from `ctx.newId`), no I/O
 * (effects are data the caller executes and answers with events). The input is never mutated;
 * unchanged entries and runs keep their identity. The same snapshot, event and ids always give the
 * same decision.
 *
 * Files by role: entry-events (submit, cancel, restart, forge reports), run-results (test branches,
 * CI), merging, queue-control (state, settings, mode switch), timers, freeze (scheduled freezes), then
 * settle: admission, validity, failure, bisection, scheduling.
 */
import { Draft } from './draft.js';
import {
  onCancel,
  onImpactedTargets,
  onPrGone,
  onPrMergedOutside,
  onPrObserved,
  onRestart,
  onSubmit,
  onTargetMoved,
} from './entry-events.js';
import { checkMergeEvent, onMergeFailed, onMerged } from './merging.js';
import { onSetState, onUpdateConfig } from './queue-control.js';
import { onCiResult, onCiStarted, onCiStatusSeen, onTestBranchCreated, onTestBranchFailed } from './run-results.js';
import { settle } from './settle.js';
import { expireNotReady, expireRuns } from './timers.js';
import type { DecideContext, Decision, Effect, EngineEvent, QueuedReason, QueueSnapshot, Rejection } from './types.js';

export function decide(snapshot: QueueSnapshot, event: EngineEvent, ctx: DecideContext): Decision {
  if (!hasTime(event)) return reject(NO_TIME);
  const d = new Draft(snapshot, event.at, ctx);
  const rejection = apply(d, event);
  if (rejection) return reject(rejection);
  settle(d, fallbackReason(event));
  return { ok: true, snapshot: d.finish(), effects: d.effects };
}

/**
 * The events that can be decided together: the API's requests. Each checks everything before it
 * changes anything, so a rejected one leaves the draft as it was for the others.
 */
export type GroupableEvent = Extract<EngineEvent, { kind: 'submit' | 'cancel' | 'restart' }>;

/**
 * Events with the same key can share one decision (`decideAll`): they are groupable and invalidate
 * runs for the same reason. Null: the event is decided on its own.
 */
export function groupKey(event: EngineEvent): string | null {
  return event.kind === 'submit' || event.kind === 'cancel' || event.kind === 'restart' ? fallbackReason(event) : null;
}

export interface GroupDecision {
  /** Per event, in order: null when it was applied, else why it was rejected. */
  rejections: (Rejection | null)[];
  /** Unchanged (the input, no effects) when every event was rejected. */
  snapshot: QueueSnapshot;
  effects: Effect[];
}

/**
 * Several events of one group (same `groupKey`) in one decision: each is applied in order at its own
 * time (never before the one ahead of it), then the queue settles once, as `decide` does after a
 * single event. Requests that arrive together are thus decided together: one pass over the queue
 * instead of one per request.
 */
export function decideAll(
  snapshot: QueueSnapshot,
  events: readonly GroupableEvent[],
  ctx: DecideContext,
): GroupDecision {
  const keys = new Set(events.map(groupKey));
  if (keys.size > 1 || keys.has(null)) throw new Error('decideAll takes events of one group (the same groupKey)');
  const d = new Draft(snapshot, events.find(hasTime)?.at ?? 0, ctx);
  const rejections = events.map((event) => {
    if (!hasTime(event)) return NO_TIME;
    d.at = Math.max(d.at, event.at);
    return apply(d, event);
  });
  if (rejections.every((r) => r !== null)) return { rejections, snapshot, effects: [] };
  settle(d, fallbackReason(events[0]));
  return { rejections, snapshot: d.finish(), effects: d.effects };
}

const NO_TIME: Rejection = { code: 'INVALID_EVENT', message: 'an event needs a kind and a finite time `at`' };

function hasTime(event: EngineEvent): boolean {
  return !!event && typeof event === 'object' && Number.isFinite(event.at);
}

function reject(rejection: Rejection): Decision {
  return { ok: false, rejection };
}

function apply(d: Draft, ev: EngineEvent): Rejection | null {
  switch (ev.kind) {
    case 'submit':
      return onSubmit(d, ev);
    case 'cancel':
      return onCancel(d, ev);
    case 'restart':
      return onRestart(d, ev);
    case 'prObserved':
      return onPrObserved(d, ev);
    case 'prClosed':
    case 'prConvertedToDraft':
      return onPrGone(d, ev);
    case 'prMergedOutside':
      return onPrMergedOutside(d, ev);
    case 'impactedTargets':
      return onImpactedTargets(d, ev);
    case 'testBranchCreated':
      return onTestBranchCreated(d, ev);
    case 'testBranchFailed':
      return onTestBranchFailed(d, ev);
    case 'ciResult':
      return onCiResult(d, ev);
    case 'ciStarted':
      return onCiStarted(d, ev);
    case 'ciStatusSeen':
      return onCiStatusSeen(d, ev);
    case 'merged': {
      const bad = checkMergeEvent(d, ev);
      if (!bad) onMerged(d, ev);
      return bad;
    }
    case 'mergeFailed': {
      const bad = checkMergeEvent(d, ev);
      if (!bad) onMergeFailed(d, ev);
      return bad;
    }
    case 'targetMoved':
      return onTargetMoved(d, ev);
    case 'tick':
      expireRuns(d);
      expireNotReady(d);
      return null;
    case 'updateConfig':
      return onUpdateConfig(d, ev);
    case 'setState':
      return onSetState(d, ev);
    default: {
      const unknown: never = ev;
      return {
        code: 'INVALID_EVENT',
        message: `unknown event kind ${JSON.stringify((unknown as { kind?: unknown }).kind)}`,
      };
    }
  }
}

/** The restart reason for runs an event invalidates when no more specific cause is known. */
function fallbackReason(ev: EngineEvent): QueuedReason {
  switch (ev.kind) {
    case 'targetMoved':
    case 'mergeFailed':
      return 'MANUAL_PUSH_TO_TARGET_BRANCH';
    case 'prMergedOutside':
      return 'PREREQUISITE_MERGE_ITEM_MANUALLY_MERGED';
    case 'cancel':
    case 'prClosed':
    case 'prConvertedToDraft':
    case 'prObserved':
      return 'PREREQUISITE_MERGE_ITEM_CANCELLED';
    case 'restart':
      return ev.reason;
    case 'impactedTargets':
      return 'TESTS_RESTARTED_BY_API_REQUEST';
    default:
      return 'PREREQUISITE_MERGE_ITEM_FAILED';
  }
}
