/**
 * updateQueue's body → the service's QueueUpdate (contract §2.10, §3 #2 and #5):
 * - patch semantics: an omitted field is left unchanged (Terraform relies on it, and retries writes,
 *   so the same body twice gives the same queue);
 * - legacy names (testingTimeoutMins, isBatching, batchingMaxWaitTimeMins, batchingMode) set the
 *   current settings; a legacy and a current name that disagree are refused;
 * - `requiredStatuses: [...]` sets the override; `[]` sets an empty one: no check is required (what
 *   Trunk's Terraform provider sends for `required_statuses = []`, and Trunk's v2 meaning); null
 *   changes nothing; `deleteRequiredStatuses: true` removes the override;
 * - `freezes` (extension) replaces the whole freeze setting, its omitted lists empty and stopTesting
 *   false; null removes it.
 */
import type { Static } from '@sinclair/typebox';
import type { QueueUpdate } from '../../app/service-port.js';
import type { FreezeSettings, Weekday } from '../../engine/types.js';
import { ServiceError } from '../../lib/errors.js';
import { canonical } from './parse-input.js';
import { SETTABLE_QUEUE_STATES } from './schemas/common.js';
import {
  ADAPTIVE_MODES,
  AUTO_QUARANTINE_MODES,
  DIRECT_MERGE_MODES,
  MERGE_METHODS,
  MODES,
  OPTIMIZATION_MODES,
  TEST_BRANCH_CONSTRUCTION_MODES,
  type UpdateQueueRequest,
} from './schemas/queue.js';

type Body = Static<typeof UpdateQueueRequest>;

const anyCase = <T extends string>(values: readonly T[], value: string | undefined, field: string): T | undefined =>
  value === undefined ? undefined : canonical(values, value, `body/${field}`);

function alias<K extends keyof QueueUpdate>(
  update: QueueUpdate,
  name: K,
  value: QueueUpdate[K] | undefined,
  legacy: string,
): void {
  if (value === undefined) return;
  if (update[name] !== undefined && update[name] !== value) {
    throw new ServiceError('VALIDATION_FAILED', `body/${legacy} disagrees with body/${name}; send only ${name}`);
  }
  update[name] = value;
}

/** An ISO time as the queue keeps it (UTC, milliseconds); anything else is left for the engine to refuse. */
const isoTime = (v: string): string =>
  /^\d{4}-\d\d-\d\dT/.test(v) && Number.isFinite(Date.parse(v)) ? new Date(Date.parse(v)).toISOString() : v;

/** `freezes` with its defaults: a whole new setting (null removes it, omitted leaves it). */
function freezesOf(f: Body['freezes']): FreezeSettings | null | undefined {
  if (f === undefined || f === null) return f;
  return {
    windows: (f.windows ?? []).map(({ days, ...w }) => ({
      ...w,
      ...(days ? { days: days.map((d) => d.toLowerCase() as Weekday) } : {}),
    })),
    oneOff: (f.oneOff ?? []).map((o) => ({ ...o, from: isoTime(o.from), until: isoTime(o.until) })),
    exemptLabels: f.exemptLabels ?? [],
    stopTesting: f.stopTesting ?? false,
  };
}

/** `"auto"` (any case) turns the automatic timeout on, keeping the number; a number turns it off. */
function testingTimeout(
  value: Body['testingTimeoutMinutes'],
): Pick<QueueUpdate, 'testingTimeoutMinutes' | 'testingTimeoutAuto'> {
  if (value === undefined) return {};
  return typeof value === 'number'
    ? { testingTimeoutMinutes: value, testingTimeoutAuto: false }
    : { testingTimeoutAuto: true };
}

export function toQueueUpdate(body: Body): QueueUpdate {
  const requiredStatuses = body.requiredStatuses ?? undefined;
  if (requiredStatuses && body.deleteRequiredStatuses) {
    throw new ServiceError(
      'VALIDATION_FAILED',
      'body/requiredStatuses cannot be set together with deleteRequiredStatuses: true',
    );
  }
  const update: QueueUpdate = {
    state: anyCase(SETTABLE_QUEUE_STATES, body.state, 'state'),
    mode: anyCase(MODES, body.mode, 'mode'),
    concurrency: body.concurrency,
    bisectionConcurrency: body.bisectionConcurrency,
    ...testingTimeout(body.testingTimeoutMinutes),
    pendingFailureDepth: body.pendingFailureDepth,
    canOptimisticallyMerge: body.canOptimisticallyMerge,
    batch: body.batch,
    batchingMaxWaitTimeMinutes: body.batchingMaxWaitTimeMinutes,
    batchingMinSize: body.batchingMinSize,
    commentsEnabled: body.commentsEnabled,
    commandsEnabled: body.commandsEnabled,
    createPrsForTestingBranches: body.createPrsForTestingBranches,
    statusCheckEnabled: body.statusCheckEnabled,
    directMergeMode: anyCase(DIRECT_MERGE_MODES, body.directMergeMode, 'directMergeMode'),
    optimizationMode: anyCase(OPTIMIZATION_MODES, body.optimizationMode, 'optimizationMode'),
    mergeMethod: anyCase(MERGE_METHODS, body.mergeMethod, 'mergeMethod'),
    requiredStatuses,
    deleteRequiredStatuses: body.deleteRequiredStatuses,
    extensionEnabled: body.extensionEnabled,
    enqueueingLabel: body.enqueueingLabel,
    labelCommandsEnabled: body.labelCommandsEnabled,
    stateLabelsEnabled: body.stateLabelsEnabled,
    notReadyTimeoutHours: body.notReadyTimeoutHours,
    testBranchConstructionMode: anyCase(
      TEST_BRANCH_CONSTRUCTION_MODES,
      body.testBranchConstructionMode,
      'testBranchConstructionMode',
    ),
    adaptiveMode: anyCase(ADAPTIVE_MODES, body.adaptiveMode, 'adaptiveMode'),
    adaptiveMinConcurrency: body.adaptiveMinConcurrency,
    riskAwareBatching: anyCase(ADAPTIVE_MODES, body.riskAwareBatching, 'riskAwareBatching'),
    freezes: freezesOf(body.freezes),
    ciRetries: body.ciRetries,
    allSkippedPasses: body.allSkippedPasses,
    tryConcurrency: body.tryConcurrency,
    requiredStatusStartTimeoutMinutes: body.requiredStatusStartTimeoutMinutes,
    quarantinedStatuses: body.quarantinedStatuses,
    autoQuarantine: anyCase(AUTO_QUARANTINE_MODES, body.autoQuarantine, 'autoQuarantine'),
    autoQuarantineThreshold: body.autoQuarantineThreshold,
    autoQuarantineMinResults: body.autoQuarantineMinResults,
    impactedTargetsFromPaths: body.impactedTargetsFromPaths,
    commitMessages: body.commitMessages,
  };
  alias(update, 'testingTimeoutMinutes', body.testingTimeoutMins, 'testingTimeoutMins');
  alias(update, 'batch', body.isBatching, 'isBatching');
  alias(update, 'batchingMaxWaitTimeMinutes', body.batchingMaxWaitTimeMins, 'batchingMaxWaitTimeMins');
  const batchingMode = anyCase(['SPECULATIVE', 'NONE'], body.batchingMode, 'batchingMode');
  alias(update, 'batch', batchingMode === undefined ? undefined : batchingMode === 'SPECULATIVE', 'batchingMode');
  // Omitted means unchanged: no key may reach the service with the value undefined.
  return Object.fromEntries(Object.entries(update).filter(([, value]) => value !== undefined)) as QueueUpdate;
}
