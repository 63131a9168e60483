/**
 * Errors of a client command as one line that says what to do; src/cli.ts prints it and exits 1.
 * The server's own message comes first (it names the field, PR or queue), then its status and code.
 */
import { GreenlineApiError, GreenlineNetworkError, WaitTimeoutError } from '../client/index.js';

/** What to try next, for the codes where the server's message alone does not say it. */
const HINTS: Record<string, string> = {
  REPO_NOT_FOUND: 'connect it with `greenline repo connect`, or check --repo',
  QUEUE_NOT_FOUND: 'create it with `greenline queue create`, or check --branch',
  PR_NOT_SUBMITTED: 'submit it with `greenline pr submit`',
  QUEUE_EXISTS: 'see it with `greenline queue get`, change it with `greenline queue update`',
};

/** `hints`: a command's own hints by code, over the general ones. */
export function describeClientError(err: unknown, url: string, hints: Record<string, string> = {}): Error {
  if (err instanceof GreenlineNetworkError) {
    if (err.reason === 'TIMEOUT')
      return new Error(`greenline at ${url} did not answer in time: is it overloaded or stuck?`);
    return new Error(`cannot reach greenline at ${url}: is \`greenline serve\` running? (${err.reason})`);
  }
  if (err instanceof GreenlineApiError) {
    if (err.status === 401 && err.code === 'UNAUTHORIZED') {
      return new Error('the token was refused: check --token / GREENLINE_TOKEN (401 UNAUTHORIZED)');
    }
    const hint = hints[err.code] ?? HINTS[err.code];
    return new Error(`${err.message} (${err.status} ${err.code})${hint ? `; ${hint}` : ''}`);
  }
  if (err instanceof WaitTimeoutError) return new Error(`${err.message}: gave up waiting (--timeout)`);
  return err instanceof Error ? err : new Error(String(err));
}
