/**
 * The HTTP application: Trunk's v1 API under /v1 (token required), the extensions beside it, the
 * OpenAPI document and its rendered reference, and /healthz. Built from injected dependencies and
 * not started: the caller listens (or injects requests in tests) and closes it.
 */
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import fastifySseModule, { type SSEPluginOptions } from '@fastify/sse';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import type { Logger } from 'pino';
import type { MergeQueueService } from '../app/service-port.js';
import type { RequestTiming } from '../metrics/operator-metrics.js';
import { addApiKeywords } from './ajv-keywords.js';
import { requireToken } from './auth.js';
import { enumCaseFor } from './config-source.js';
import { registerDashboard } from './web-assets.js';
import { errorHandler } from './error-handler.js';
import { type ForgeWebhookRoute, registerForgeWebhook } from './forge-webhook.js';
import { parseJsonBody } from './json-body.js';
import { notFoundHandler } from './not-found.js';
import { registerOpenApi } from './openapi.js';
import type { ApiApp } from './route-deps.js';
import { healthz } from './v1/routes/healthz.js';
import type { TypeBoxTypeProvider } from './type-provider.js';
import { V1_ROUTES } from './v1/routes.js';
import { DEFAULT_V2_LIMITS, registerV2, type V2Limits } from './v2/plugin.js';
import type { EnumCase } from './v1/wire.js';

/** Contract §1: request bodies up to 20 MiB (large impacted-target lists). */
export const BODY_LIMIT = 20 * 1024 * 1024;

/**
 * @fastify/sse is CommonJS: its module object is the plugin, wrapped so that it applies to every
 * route (its `default` property is the unwrapped one, which would not), but its types describe the
 * module as an ES module.
 */
const fastifySse = fastifySseModule as unknown as FastifyPluginAsync<SSEPluginOptions>;

/** Interval of the keep-alive comment of server-sent event streams. */
const SSE_KEEP_ALIVE_MS = 15_000;

export interface HttpAppDeps {
  service: MergeQueueService;
  logger: Logger | false;
  enumCase: EnumCase;
  /** Told of every answered request (the operator metrics' latency histogram), when given. */
  onRequestDone?: (timing: RequestTiming) => void;
  /** The webhooks served, one route each (the forges set up with a webhook secret: `POST /webhooks/<name>`). */
  forgeWebhooks?: readonly ForgeWebhookRoute[];
  /** Request limits of the v2 API per organization (default 100/s, metrics 5/s). */
  v2Limits?: V2Limits;
}

export async function buildHttpApp(deps: HttpAppDeps): Promise<FastifyInstance> {
  const { service } = deps;
  const enumCase = (headers: IncomingHttpHeaders) => enumCaseFor(headers, deps.enumCase);
  const fastify = Fastify<Server, IncomingMessage, ServerResponse, FastifyBaseLogger>({
    loggerInstance: deps.logger || undefined,
    bodyLimit: BODY_LIMIT,
    // One log line per request, written by the onResponse hook below.
    logController: new LogController({ disableRequestLogging: true }),
    ajv: {
      // Validate what clients send, as sent: no type coercion, no removal of extra fields (they are
      // tolerated and ignored), the schema of each error for validation-message.ts.
      customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: true, verbose: true },
      plugins: [addApiKeywords],
    },
  });
  const app: ApiApp = fastify.withTypeProvider<TypeBoxTypeProvider>();

  app.setErrorHandler(errorHandler);
  app.setNotFoundHandler(notFoundHandler(app));
  // A callback hook, not an async one: it runs for every request and needs no promise.
  app.addHook('onResponse', (request, reply, done) => {
    request.log.info(
      { method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request',
    );
    deps.onRequestDone?.({
      method: request.method,
      route: request.routeOptions.url ?? 'unmatched',
      status: reply.statusCode,
      seconds: reply.elapsedTime / 1000,
    });
    done();
  });

  await registerOpenApi(app);
  // Server-sent events (GET /v1/streamQueueEvents); a comment line this often keeps proxies from
  // closing an idle stream.
  await app.register(fastifySse, { heartbeatInterval: SSE_KEEP_ALIVE_MS });
  healthz(app, { service, enumCase });
  for (const route of deps.forgeWebhooks ?? []) await registerForgeWebhook(fastify, route);
  registerDashboard(app);
  await app.register(
    async (v1: ApiApp) => {
      // JSON only: any other media type gets 415 UNSUPPORTED_MEDIA_TYPE.
      v1.removeAllContentTypeParsers();
      v1.addContentTypeParser('application/json', { parseAs: 'string' }, parseJsonBody);
      v1.addHook('onRequest', requireToken(service));
      for (const route of V1_ROUTES) route(v1, { service, enumCase });
    },
    { prefix: '/v1' },
  );
  await app.register((v2: ApiApp) => registerV2(v2, { service, limits: deps.v2Limits ?? DEFAULT_V2_LIMITS }), {
    prefix: '/v2',
  });
  return fastify;
}
