/**
 * The HTTP app over the real service (createTestService: the test project's database, fake forge and CI), with
 * one organization `acme`, its token, and the repository github.com/acme/web connected to it.
 * Requests go through `app.inject`, in process; `listenApiHarness` also serves it on a real socket.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildHttpApp } from '../../src/api/build-app.js';
import type { EnumCase } from '../../src/api/v1/wire.js';
import type { MergeQueueService } from '../../src/app/service-port.js';
import type { V2Limits } from '../../src/api/v2/plugin.js';
import type { OidcSettings } from '../../src/app/admin/oidc-verifier.js';
import { createTestService, type TestService } from '../helpers/service.js';
import type { Json } from '../helpers/json.js';

export const SLUG = 'github.com/acme/web';
export const REPO = { host: 'github.com', owner: 'acme', name: 'web' };

export interface ApiHarness {
  t: TestService;
  app: FastifyInstance;
  token: string;
  /** POST a JSON body with the org's token (override or drop headers with `headers`). */
  post(path: string, body: unknown, headers?: Record<string, string | undefined>): Promise<LightMyRequestResponse>;
  get(path: string, headers?: Record<string, string | undefined>): Promise<LightMyRequestResponse>;
  /** `{ repo, targetBranch: 'main', ...extra }` */
  body(extra?: Record<string, unknown>): Record<string, unknown>;
  /** Creates the `main` queue through the API and opens PRs 1..n on the fake forge. */
  queueWithPrs(n: number): Promise<void>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  enumCase?: EnumCase;
  /** A database URL (e.g. a PostgreSQL test database); default: the test project's database. */
  databaseUrl?: string;
  /** Wraps the real service, e.g. to make one method fail. */
  wrap?: (service: MergeQueueService) => MergeQueueService;
  /** Request limits of the v2 API (default: the server's). */
  v2Limits?: V2Limits;
  /** The OIDC issuer whose ID tokens are accepted as CI identity (default: none). */
  ciIdentity?: OidcSettings;
}

export async function createApiHarness(opts: HarnessOptions = {}): Promise<ApiHarness> {
  const t = await createTestService({
    ...(opts.databaseUrl ? { databaseUrl: opts.databaseUrl } : {}),
    ...(opts.ciIdentity ? { ciIdentity: opts.ciIdentity } : {}),
  });
  const { token } = await t.createOrg('acme');
  await t.connectRepo('acme', SLUG);
  const service = opts.wrap ? opts.wrap(t.service) : t.service;
  const app = await buildHttpApp({
    service,
    logger: false,
    enumCase: opts.enumCase ?? 'upper',
    ...(opts.v2Limits ? { v2Limits: opts.v2Limits } : {}),
  });
  const headersWith = (headers: Record<string, string | undefined>) =>
    Object.fromEntries(
      Object.entries({ 'x-api-token': token, ...headers }).filter(([, v]) => v !== undefined),
    ) as Record<string, string>;
  const h: ApiHarness = {
    t,
    app,
    token,
    post: (path, body, headers = {}) =>
      app.inject({
        method: 'POST',
        url: path,
        headers: headersWith({ 'content-type': 'application/json', ...headers }),
        payload: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    get: (path, headers = {}) => app.inject({ method: 'GET', url: path, headers: headersWith(headers) }),
    body: (extra = {}) => ({ repo: REPO, targetBranch: 'main', ...extra }),
    async queueWithPrs(n) {
      const res = await h.post('/v1/createQueue', h.body());
      if (res.statusCode !== 200) throw new Error(`createQueue: ${res.statusCode} ${res.body}`);
      for (let number = 1; number <= n; number++)
        t.forge.openPr(SLUG, { number, title: `Change ${number}`, author: 'dev' });
    },
    async close() {
      await app.close();
      await t.close();
    },
  };
  return h;
}

export const json = (res: LightMyRequestResponse): Json => JSON.parse(res.body);

/** The `{ error: { code, message } }` of a response, with its status. */
export const errorOf = (res: LightMyRequestResponse) => ({
  status: res.statusCode,
  ...(json(res).error as { code: string; message: string }),
});

/** The harness served on a real socket at `base` (127.0.0.1, a free port), for real HTTP clients. */
export async function listenApiHarness(opts: HarnessOptions = {}): Promise<ApiHarness & { base: string }> {
  const h = await createApiHarness(opts);
  return { ...h, base: await h.app.listen({ port: 0, host: '127.0.0.1' }) };
}
