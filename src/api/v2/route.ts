import type { MergeQueueService } from '../../app/service-port.js';
import type { ApiApp } from '../route-deps.js';

/** What a v2 route is given. */
export interface V2RouteDeps {
  service: MergeQueueService;
}

/** Each file under v2/routes/ exports one of these: it registers one v2 operation. */
export type V2Route = (app: ApiApp, deps: V2RouteDeps) => void;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route answers metrics (their own, lower request limit). */
    metrics?: boolean;
  }
}
