/**
 * greenline's TypeScript client (`import { GreenlineClient } from 'greenline/client'`): every endpoint
 * of the HTTP API, typed from the server's own schemas, over the global fetch.
 */
export { GreenlineClient } from './greenline-client.js';
export { DEFAULT_TIMEOUT_MS, type GreenlineClientOptions, type CallOptions } from './transport.js';
export { GreenlineError, GreenlineApiError, GreenlineNetworkError, type GreenlineErrorCode } from './errors.js';
export { ENDPOINTS, type EndpointName } from './endpoints.js';
export {
  waitForPullRequest,
  isTerminalState,
  TERMINAL_PR_STATES,
  WaitTimeoutError,
  type WaitForPullRequestOptions,
} from './wait-for-pull-request.js';
export type * from './types.js';
export type * from './v2-types.js';
