/** Checks of request values the service does itself, so that no caller stores what cannot run. */
import { validateConfigPatch } from '../../engine/index.js';
import type { QueueConfig } from '../../engine/types.js';
import { ServiceError } from '../../lib/errors.js';

/** The defined settings of `input`, checked by the engine's rules; a bad one is a 400 naming it. */
export function configPatch(input: Partial<QueueConfig>): Partial<QueueConfig> {
  const patch = Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) as Partial<QueueConfig>;
  const problem = validateConfigPatch(patch);
  if (problem) throw new ServiceError('VALIDATION_FAILED', problem);
  return patch;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: git refuses control characters in a ref name
const REFUSED_IN_BRANCH = /[\x00-\x20\x7f~^:?*[\\]|\.\.|@\{|\/\/|^[-/.]|[/.]$|\.lock$|\/\./;

/** git's rules for a branch name (git check-ref-format), so that no queue names a branch git refuses. */
export function isBranchName(b: string): boolean {
  return b.length > 0 && b.length <= 255 && !REFUSED_IN_BRANCH.test(b) && b !== '@';
}

export function assertPrNumber(n: number, min = 1): void {
  if (!Number.isSafeInteger(n) || n < min || n > 4294967295) {
    throw new ServiceError('VALIDATION_FAILED', `pr.number must be an integer from ${min} to 4294967295`);
  }
}
