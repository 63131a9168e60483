/**
 * Validation of queue settings (contract §4). Returns a message naming the first bad field, or null.
 * The engine refuses an `updateConfig` whose patch fails it; the API layer may use it too.
 */
import { commitMessagesProblem } from './commit-message.js';
import { freezeProblem } from './freeze.js';
import { MAX_CI_RETRIES } from './ci-retries.js';
import { STATUS_RESULTS_KEPT } from './quarantine.js';
import type { QueueConfig } from './types.js';

type Check = (v: unknown) => string | null;

/** The most test runs a queue may have at once (concurrency, bisectionConcurrency): the same on every API. */
export const MAX_CONCURRENCY = 1000;

const int =
  (min: number): Check =>
  (v) =>
    typeof v === 'number' && Number.isInteger(v) && v >= min ? null : `must be an integer >= ${min}`;
const between =
  (min: number, max: number): Check =>
  (v) =>
    typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max
      ? null
      : `must be an integer from ${min} to ${max}`;
const bool: Check = (v) => (typeof v === 'boolean' ? null : 'must be true or false');
const oneOf =
  (...values: string[]): Check =>
  (v) =>
    typeof v === 'string' && values.includes(v) ? null : `must be one of ${values.join(', ')}`;

const CHECKS: Record<keyof QueueConfig, Check> = {
  mode: oneOf('single', 'parallel'),
  concurrency: between(1, MAX_CONCURRENCY),
  testingTimeoutMinutes: int(1),
  pendingFailureDepth: int(0),
  canOptimisticallyMerge: bool,
  batch: bool,
  batchingMaxWaitTimeMinutes: int(1),
  batchingMinSize: int(1),
  bisectionConcurrency: between(1, MAX_CONCURRENCY),
  optimizationMode: oneOf('off', 'bisection_skip_redundant_tests'),
  mergeMethod: oneOf('merge_commit', 'squash', 'rebase'),
  directMergeMode: oneOf('off', 'always'),
  createPrsForTestingBranches: bool,
  commentsEnabled: bool,
  commandsEnabled: bool,
  statusCheckEnabled: bool,
  requiredStatuses: (v) =>
    v === null || (Array.isArray(v) && v.every((s) => typeof s === 'string' && s.length > 0))
      ? null
      : 'must be null or a list of non-empty status names',
  extensionEnabled: bool,
  enqueueingLabel: (v) => (typeof v === 'string' && v.trim().length > 0 ? null : 'must be a non-empty string'),
  labelCommandsEnabled: bool,
  stateLabelsEnabled: bool,
  notReadyTimeoutHours: (v) =>
    typeof v === 'number' && Number.isFinite(v) && v >= 0 ? null : 'must be a number of hours >= 0 (0 = never)',
  testBranchConstructionMode: oneOf('rename_temp_branch', 'push_new_branch_from_temp'),
  adaptiveMode: oneOf('off', 'on'),
  adaptiveMinConcurrency: between(1, MAX_CONCURRENCY),
  freezes: (v) => (v === null ? null : freezeProblem(v)),
  ciRetries: (v) =>
    typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_CI_RETRIES
      ? null
      : `must be an integer from 0 to ${MAX_CI_RETRIES}`,
  riskAwareBatching: oneOf('off', 'on'),
  requiredStatusStartTimeoutMinutes: int(0),
  testingTimeoutAuto: bool,
  allSkippedPasses: bool,
  tryConcurrency: int(1),
  quarantinedStatuses: (v) =>
    Array.isArray(v) && v.every((s) => typeof s === 'string' && s.length > 0)
      ? null
      : 'must be a list of non-empty status names',
  autoQuarantine: oneOf('off', 'on'),
  autoQuarantineThreshold: (v) =>
    typeof v === 'number' && Number.isFinite(v) && v > 0 && v <= 1 ? null : 'must be a number above 0 and at most 1',
  autoQuarantineMinResults: between(1, STATUS_RESULTS_KEPT),
  impactedTargetsFromPaths: (v) => (v === null ? null : pathTargetsProblem(v)),
  commitMessages: commitMessagesProblem,
};

const names = (v: unknown): boolean => Array.isArray(v) && v.every((s) => typeof s === 'string' && s.trim() !== '');

/** What is wrong with an impactedTargetsFromPaths setting, or null. */
function pathTargetsProblem(v: unknown): string | null {
  const shape =
    'must be null or {"targets": {"<target>": ["<glob>", …], …}, "fallback"?: ["<target>", …]} with at least one target';
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return shape;
  const { targets, fallback, ...rest } = v as Record<string, unknown>;
  if (Object.keys(rest).length > 0) return `${shape}; unknown field ${Object.keys(rest)[0]}`;
  if (typeof targets !== 'object' || targets === null || Array.isArray(targets)) return shape;
  const entries = Object.entries(targets);
  if (
    entries.length === 0 ||
    entries.some(([name, globs]) => name.trim() === '' || !names(globs) || (globs as string[]).length === 0)
  )
    return `${shape}; each target needs a name and at least one non-empty glob`;
  if (fallback !== undefined && !names(fallback)) return `${shape}; fallback must be a list of target names`;
  return null;
}

export function validateConfigPatch(patch: Record<string, unknown>): string | null {
  for (const [key, value] of Object.entries(patch)) {
    if (!Object.hasOwn(CHECKS, key)) return `unknown queue setting "${key}"`;
    if (value === undefined) continue;
    const problem = CHECKS[key as keyof QueueConfig](value);
    if (problem && key === 'freezes') return problem; // names the field within the setting itself
    if (problem) return `${key} ${problem}, got ${JSON.stringify(value)}`;
  }
  return null;
}
