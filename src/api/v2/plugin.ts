/**
 * Trunk's v2 merge-queue API under /v2, over the same service as v1: `Authorization: Bearer <token>`
 * with the v1 API tokens, an `X-Request-Id` on every response, the v2 error envelope and codes
 * (errors.ts), strict validation (unknown keys and other spellings of enums are 400), and request
 * limits per organization (100/s, metrics 5/s by default; the server's v2RateLimit settings).
 */
import { randomUUID } from 'node:crypto';
import rateLimit from '@fastify/rate-limit';
import type { FastifyRequest } from 'fastify';
import { requireRouteScopes } from '../auth.js';
import { parseJsonBody } from '../json-body.js';
import { sourceOf } from '../request-source.js';
import type { ApiApp } from '../route-deps.js';
import { callerOf, setCaller } from './caller.js';
import { V2Error, v2ErrorHandler } from './errors.js';
import type { V2RouteDeps } from './route.js';
import { V2_ROUTES } from './routes.js';

export interface V2Limits {
  /** Requests per second per organization. */
  perSecond: number;
  /** Requests per second per organization to the metrics endpoints. */
  metricsPerSecond: number;
}

export const DEFAULT_V2_LIMITS: V2Limits = { perSecond: 100, metricsPerSecond: 5 };

export interface V2Deps extends V2RouteDeps {
  limits: V2Limits;
}

/** Query values arrive as text: integers and booleans the route's schema declares are read as such. */
function readQueryTypes(request: FastifyRequest): void {
  const schema = request.routeOptions.schema?.querystring as
    | { properties?: Record<string, { type?: string }> }
    | undefined;
  const query = request.query as Record<string, unknown> | undefined;
  if (!schema?.properties || !query) return;
  for (const [key, value] of Object.entries(query)) {
    const type = schema.properties[key]?.type;
    if (typeof value !== 'string') continue;
    if (type === 'integer' && /^-?\d+$/.test(value)) query[key] = Number(value);
    else if (type === 'boolean' && (value === 'true' || value === 'false')) query[key] = value === 'true';
  }
}

export async function registerV2(v2: ApiApp, deps: V2Deps): Promise<void> {
  v2.setErrorHandler(v2ErrorHandler);
  v2.removeAllContentTypeParsers();
  // JSON, and JSON Merge Patch (RFC 7396) for PATCH …/config.
  // An empty body is no body: pause, resume, drain, dequeue and restart-tests ignore theirs, and an
  // operation that needs one says so.
  v2.addContentTypeParser(
    ['application/json', 'application/merge-patch+json'],
    { parseAs: 'string' },
    (request, body, done) => (body === '' ? done(null, undefined) : parseJsonBody(request, body as string, done)),
  );
  v2.addHook('onRequest', async (_request, reply) => {
    reply.header('x-request-id', randomUUID());
  });
  v2.addHook('onRequest', async (request) => {
    const auth = request.headers.authorization;
    if (auth === undefined || auth.trim() === '')
      throw new V2Error(401, 'AUTHENTICATION_REQUIRED', 'Send an API token as Authorization: Bearer <token>');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    const ctx = match ? await deps.service.authenticate(match[1]!) : null;
    if (!ctx)
      throw new V2Error(401, 'INVALID_TOKEN', 'The token in Authorization: Bearer <token> is not a valid API token');
    requireRouteScopes(request, ctx);
    setCaller(request, { ...ctx, source: sourceOf(request) });
  });
  v2.addHook('preValidation', async (request) => readQueryTypes(request));
  v2.setNotFoundHandler(async (request) => {
    throw new V2Error(
      404,
      'NOT_FOUND',
      `No endpoint ${request.method} ${request.url.split('?')[0]}; see GET /v2/openapi.json`,
    );
  });
  await v2.register(rateLimit, {
    global: true,
    hook: 'preParsing',
    timeWindow: 1000,
    max: (request) => (request.routeOptions.config.metrics ? deps.limits.metricsPerSecond : deps.limits.perSecond),
    keyGenerator: (request) => `${callerOf(request).orgId}${request.routeOptions.config.metrics ? ':metrics' : ''}`,
    errorResponseBuilder: (_request, context) =>
      new V2Error(429, 'RATE_LIMIT_EXCEEDED', `Too many requests; retry after ${context.after}`),
  });
  for (const route of V2_ROUTES) route(v2, deps);
}
