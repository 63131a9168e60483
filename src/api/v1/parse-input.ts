/**
 * Wire → domain for the values the schemas accept in more than one form: PR numbers as integers or
 * decimal strings, enums in any letter case, priorities as numbers or names, "ALL" targets. The
 * schemas have already checked the form; these functions normalise it and check what a schema cannot
 * (ranges of numeric strings).
 */
import type { QueueKey } from '../../app/service-port.js';
import type { ImpactedTargets, PriorityName, RepoRef } from '../../engine/types.js';
import { ServiceError } from '../../lib/errors.js';
import { PRIORITY_NAMES } from './schemas/pull-request.js';

const MAX_PR_NUMBER = 4294967295;
const MAX_PRIORITY = 255;

export function queueKey(body: { repo: RepoRef; targetBranch: string }): QueueKey {
  const { host, owner, name } = body.repo;
  return { repo: { host, owner, name }, targetBranch: body.targetBranch };
}

export function prNumber(value: number | string, field = 'body/pr/number'): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1 || n > MAX_PR_NUMBER) {
    throw new ServiceError('VALIDATION_FAILED', `${field} must be between 1 and ${MAX_PR_NUMBER}`);
  }
  return n;
}

/** The value of `values` that equals `input` ignoring letter case. */
export function canonical<T extends string>(values: readonly T[], input: string, field: string): T {
  const lower = input.toLowerCase();
  const found = values.find((v) => v.toLowerCase() === lower);
  if (found === undefined) {
    throw new ServiceError('VALIDATION_FAILED', `${field} must be one of ${values.join(', ')} (any letter case)`);
  }
  return found;
}

export function priority(value: number | string | null | undefined): number | PriorityName | null | undefined {
  if (typeof value !== 'string') return value;
  if (!/^[0-9]+$/.test(value)) return canonical(PRIORITY_NAMES, value, 'body/priority');
  const n = Number(value);
  if (n > MAX_PRIORITY)
    throw new ServiceError('VALIDATION_FAILED', `body/priority must be between 0 and ${MAX_PRIORITY}`);
  return n;
}

/** "ALL" and Trunk's legacy "IMPACTS_ALL" mean every target (contract §3 #8); empty names are dropped. */
export function impactedTargets(value: string[] | string): ImpactedTargets {
  if (typeof value === 'string') {
    canonical(['ALL', 'IMPACTS_ALL'], value, 'body/impactedTargets');
    return 'ALL';
  }
  return value.filter((target) => target !== '');
}
