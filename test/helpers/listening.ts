/** Waiting for a spawned server to say where it listens. */
import type { ChildProcess } from 'node:child_process';
import { vi } from 'vitest';

/** What `greenline serve` logs once it accepts connections; the group is its address. */
const LISTENING = /listening on (\S+)/;

/**
 * The address `child` prints once it listens (the first group of `pattern` in `output()`), or null
 * when it exits before that or has not printed it within `timeoutMs`.
 */
export async function listeningAddress(
  child: ChildProcess,
  output: () => string,
  timeoutMs: number,
  pattern = LISTENING,
): Promise<string | null> {
  const address = (): string | undefined => pattern.exec(output())?.[1];
  // The condition cannot throw: a rejection is the timeout, answered below by the missing address.
  await vi
    .waitUntil(() => address() !== undefined || child.exitCode !== null, { timeout: timeoutMs, interval: 50 })
    .catch(() => undefined);
  return address() ?? null;
}
