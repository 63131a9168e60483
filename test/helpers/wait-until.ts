/** Waiting in tests for what another process or a background loop does. */
import { vi } from 'vitest';

/** A wait that ran out of time (as opposed to a probe that failed). */
export class WaitTimeout extends Error {}

/**
 * Polls `probe` every `intervalMs` until it answers something other than undefined, and returns
 * that. A probe that throws fails the wait at once. After `timeoutMs` it throws a WaitTimeout that
 * names `what` and, from `seen`, what was seen last.
 */
export async function waitUntil<T>(
  what: string,
  timeoutMs: number,
  probe: () => Promise<T | undefined> | T | undefined,
  seen?: () => unknown,
  intervalMs = 200,
): Promise<T> {
  let value: T | undefined;
  let probeFailed = false;
  try {
    await vi.waitUntil(
      async () => {
        try {
          value = await probe();
        } catch (err) {
          probeFailed = true;
          throw err;
        }
        return value !== undefined;
      },
      { timeout: timeoutMs, interval: intervalMs },
    );
  } catch (err) {
    if (probeFailed) throw err;
    const last = seen ? `; last seen: ${JSON.stringify(await seen())}` : '';
    throw new WaitTimeout(`timed out after ${timeoutMs} ms waiting for ${what}${last}`);
  }
  return value as T;
}
