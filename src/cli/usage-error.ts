/** A mistake in how a command was called: the message says what to do; the exit code is 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export const EXIT_USAGE = 2;
