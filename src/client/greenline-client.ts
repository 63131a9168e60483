/**
 * A typed client of greenline's HTTP API over the global fetch: one method per operation, named as
 * the endpoint (see endpoints.ts), taking and returning the types of types.ts.
 *
 * The methods are written area by area, one class each, stacked on the transport (transport.ts: the
 * address, the token, the timeout, how a call resolves or rejects) so that the client is one class
 * with every method and the transport's requests stay protected:
 *
 *   Transport ← PullRequestCalls   pull requests and their testing       pull-request-calls.ts
 *             ← QueueCalls         queues, metrics, the CI extensions    queue-calls.ts
 *             ← SubscriptionCalls  webhooks, chat notification channels  subscription-calls.ts
 *             ← DashboardCalls     the dashboard's extensions, liveness  dashboard-calls.ts
 *             ← V2Calls            Trunk's v2 API                        v2-calls.ts
 *             ← GreenlineClient
 *
 * The order means nothing: an area uses only the transport's requests. (Mixins would compose the
 * areas side by side, but a mixin over a class with protected members cannot be written in a .d.ts:
 * TypeScript's TS4094.)
 */
import { V2Calls } from './v2-calls.js';

export class GreenlineClient extends V2Calls {}
