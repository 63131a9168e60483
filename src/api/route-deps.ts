import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { MergeQueueService } from '../app/types.js';
import type { TypeBoxTypeProvider } from './type-provider.js';
import type { EnumCase } from './wire.js';

export type ApiApp = FastifyInstance<Server, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

export interface RouteDeps {
  service: MergeQueueService;
  enumCase: EnumCase;
}

/** Each file under routes/ exports one of these: it registers one endpoint. */
export type Route = (app: ApiApp, deps: RouteDeps) => void;
