/**
 * Validation of queue settings written through createQueue/updateQueue (contract §2.10, §3, §4).
 * The HTTP layer validates shapes too; this is the service's own guard, so that no caller can store
 * a setting the engine cannot run with. Errors name the setting.
 */
import type { QueueConfig } from '../engine/types.js';
import { HttpError } from '../errors.js';

type Rule = { int: number } | { oneOf: readonly string[] } | 'bool' | 'label' | 'statuses';

/** contract §4: minimums per §3 (#11: pendingFailureDepth ≥ 0; notReadyTimeoutHours 0 = never). */
const RULES: Record<keyof QueueConfig, Rule> = {
  mode: { oneOf: ['single', 'parallel'] },
  concurrency: { int: 1 },
  testingTimeoutMinutes: { int: 1 },
  pendingFailureDepth: { int: 0 },
  canOptimisticallyMerge: 'bool',
  batch: 'bool',
  batchingMaxWaitTimeMinutes: { int: 1 },
  batchingMinSize: { int: 1 },
  bisectionConcurrency: { int: 1 },
  optimizationMode: { oneOf: ['off', 'bisection_skip_redundant_tests'] },
  mergeMethod: { oneOf: ['merge_commit', 'squash', 'rebase'] },
  directMergeMode: { oneOf: ['off', 'always'] },
  createPrsForTestingBranches: 'bool',
  commentsEnabled: 'bool',
  commandsEnabled: 'bool',
  statusCheckEnabled: 'bool',
  requiredStatuses: 'statuses',
  extensionEnabled: 'bool',
  enqueueingLabel: 'label',
  labelCommandsEnabled: 'bool',
  stateLabelsEnabled: 'bool',
  notReadyTimeoutHours: { int: 0 },
  testBranchConstructionMode: { oneOf: ['rename_temp_branch', 'push_new_branch_from_temp'] },
};

function problem(key: string, v: unknown, rule: Rule): string | null {
  if (rule === 'bool') return typeof v === 'boolean' ? null : `${key} must be true or false`;
  if (rule === 'label') return typeof v === 'string' && v.trim() !== '' ? null : `${key} must be a non-empty string`;
  if (rule === 'statuses') {
    return v === null || (Array.isArray(v) && v.every((s) => typeof s === 'string' && s !== ''))
      ? null : `${key} must be a list of non-empty status names`;
  }
  if ('int' in rule) {
    return Number.isSafeInteger(v) && (v as number) >= rule.int ? null : `${key} must be an integer of at least ${rule.int}`;
  }
  return rule.oneOf.includes(v as string) ? null : `${key} must be one of ${rule.oneOf.join(', ')}`;
}

/** Returns only the known settings of `input`; throws 400 VALIDATION_FAILED naming a bad one. */
export function validateConfigPatch(input: Record<string, unknown>): Partial<QueueConfig> {
  const patch: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined || !(key in RULES)) continue;
    const p = problem(key, value, RULES[key as keyof QueueConfig]);
    if (p) throw new HttpError('VALIDATION_FAILED', p);
    patch[key] = value;
  }
  return patch as Partial<QueueConfig>;
}
