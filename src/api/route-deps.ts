import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { MergeQueueService } from '../app/service-port.js';
import type { TypeBoxTypeProvider } from './type-provider.js';
import type { EnumCase } from './v1/wire.js';

export type ApiApp = FastifyInstance<Server, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

/** What a route is given; `S` is the part of the service it uses (an area of service-port.ts). */
export interface RouteDeps<S = MergeQueueService> {
  service: S;
  /** How to spell states in the answer to a request with these headers (config-source.ts enumCaseFor). */
  enumCase: (headers: IncomingHttpHeaders) => EnumCase;
}

/** Each file under v1/routes/ exports one of these: it registers one endpoint. */
export type Route<S = MergeQueueService> = (app: ApiApp, deps: RouteDeps<S>) => void;
