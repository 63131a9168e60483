/**
 * Creations (comments, check runs, pull requests) that a 5xx must not duplicate. GitHub may have
 * carried out a request it answered with a 5xx (or whose answer was lost), so these POSTs are not
 * retried by the client (`request: NOT_RETRIED`): after such a failure, what the POST would have
 * created is looked up first (by the comment's marker, the check run's name and head sha, the pull
 * request's head branch), and only when it is not there is the POST sent again.
 */
import type { Logger } from 'pino';
import { ForgeUnreachableError } from '../port.js';

/** Per-request option of a POST the client must not retry (the retry plugin's `retries`). */
export const NOT_RETRIED = { retries: 0 } as const;

/** How many times a creation is sent at most. */
const ATTEMPTS = 3;

/** A failure after which the creation may or may not have happened: a 5xx answer, or no answer. */
function mayHaveHappened(err: unknown): boolean {
  if (err instanceof ForgeUnreachableError) return true;
  const e = err as { status?: unknown; response?: unknown };
  return typeof e?.status === 'number' && e.response !== undefined && e.status >= 500;
}

/**
 * `create()`'s result; after a failure that may have created it anyway, `find()`'s when it finds it.
 * Other failures, and the last one, are thrown.
 */
export async function createOnce<T>(
  logger: Logger,
  what: string,
  create: () => Promise<T>,
  find: () => Promise<T | null>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await create();
    } catch (err) {
      if (!mayHaveHappened(err) || attempt >= ATTEMPTS) throw err;
      const found = await find();
      if (found !== null) {
        logger.info({ what, attempt }, 'GitHub failed a creation that went through: using what it created');
        return found;
      }
      logger.warn({ err, what, attempt }, 'GitHub failed a creation; creating again');
    }
  }
}
