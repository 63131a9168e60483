/**
 * A real server (createServer over SQLite in a temporary data dir, real sockets) configured through
 * GREENLINE_OIDC_* with a local issuer: it accepts that issuer's ID tokens for the repository they
 * name, and with an empty issuer accepts none.
 */
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRepo } from '../../src/app/admin/repo-admin.js';
import { loadConfig } from '../../src/config/config.js';
import { createServer, type Server } from '../../src/server/server.js';
import { connect } from '../../src/store/connect.js';
import { startOidcIssuer, type LocalIssuer } from '../helpers/oidc-issuer.js';
import { makeTempDirSync, removeTempDir } from '../helpers/temp-dir.js';

const dir = makeTempDirSync('greenline-oidc-serve-');
let issuer: LocalIssuer;
beforeAll(async () => {
  issuer = await startOidcIssuer();
});
afterAll(async () => {
  await issuer.close();
  removeTempDir(dir);
});

/** A server on its own data dir with `github.com/acme/web` connected, configured by `env`. */
async function serve(name: string, env: Record<string, string>): Promise<Server> {
  const dataDir = join(dir, name);
  const config = loadConfig({ env: { GREENLINE_PORT: '0', GREENLINE_DATA_DIR: dataDir, ...env }, cwd: dir });
  const server = createServer(config, pino({ level: 'silent' }));
  await server.start();
  const db = connect({ databaseUrl: null, dataDir });
  await connectRepo(db, { org: 'acme', slug: 'github.com/acme/web', forge: 'git', ciCommand: 'true' }, Date.now());
  await db.destroy();
  return server;
}

const upload = (server: Server, credential: string) =>
  fetch(`${server.url}/v1/setImpactedTargets`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-token': credential },
    body: JSON.stringify({
      repo: { host: 'github.com', owner: 'acme', name: 'web' },
      targetBranch: 'main',
      pr: { number: '4', sha: 'd'.repeat(40) },
      impactedTargets: ['//web'],
    }),
  });

describe('greenline serve with GREENLINE_OIDC_*', () => {
  it("accepts the configured issuer's ID tokens, for the audience configured, reading its key set from <issuer>/.well-known/jwks", async () => {
    const server = await serve('on', { GREENLINE_OIDC_ISSUER: issuer.issuer, GREENLINE_OIDC_AUDIENCE: 'gl-test' });
    try {
      const ok = await upload(
        server,
        await issuer.sign({ repository: 'acme/web', now: Date.now(), audience: 'gl-test' }),
      );
      expect(ok.status, await ok.text()).toBe(200);
      const other = await upload(server, await issuer.sign({ repository: 'acme/web', now: Date.now() }));
      expect(other.status).toBe(401);
      expect(((await other.json()) as { error: { message: string } }).error.message).toContain(
        'this server expects "gl-test" (setting oidcAudience)',
      );
    } finally {
      await server.stop();
    }
  });

  it('accepts none with GREENLINE_OIDC_ISSUER empty', async () => {
    const server = await serve('off', { GREENLINE_OIDC_ISSUER: '' });
    try {
      const res = await upload(server, await issuer.sign({ repository: 'acme/web', now: Date.now() }));
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({
        error: {
          code: 'OIDC_TOKEN_REFUSED',
          message:
            'The OIDC ID token is refused: this server accepts no ID tokens (its setting oidcIssuer is empty); send an API token instead',
        },
      });
    } finally {
      await server.stop();
    }
  });
});
