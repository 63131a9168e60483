/**
 * The web dashboard: static files of the `web/` folder that ships with the package (package.json
 * `files`), read once at start. `GET /` answers index.html; `GET /dashboard/<file>` the other files, and
 * `GET /dashboard/pages/<file>` the modules of the pages.
 * Everything is local (no CDN), so the dashboard works offline. The pages call the v1 API with the
 * token the user signs in with; these files themselves need no token. The files of web/'s folders
 * (`web/pages/`) are served under `/dashboard/<folder>/<file>`. Browser modules of the
 * dashboard's dependencies are served the same way from node_modules, under `/dashboard/vendor/<name>/`;
 * index.html's import map names them (`preact`, `preact/hooks`, `htm`), so the pages import them by
 * their package names, and the content security policy allows that one inline script by its hash.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ServiceError } from '../lib/errors.js';
import type { ApiApp } from './route-deps.js';

/** web/ beside src/ and dist/: both this file and its build sit two levels below the package root. */
export const WEB_DIR = fileURLToPath(new URL('../../web/', import.meta.url));

/**
 * The modules the dashboard imports, by the folder name they are served under: each is the folder of
 * the module the package resolves to, with the modules beside it.
 */
const VENDOR_MODULES: Record<string, string> = {
  'eventsource-parser': 'eventsource-parser',
  preact: 'preact',
  'preact-hooks': 'preact/hooks',
  htm: 'htm',
};

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * Same-origin only: scripts, styles and API calls come from this server and nowhere else. The one
 * inline script allowed is index.html's import map, by the hash of its text.
 */
function contentSecurityPolicy(indexHtml: string): string {
  const importMap = /<script type="importmap">([\s\S]*?)<\/script>/.exec(indexHtml)?.[1];
  const inline = importMap === undefined ? '' : ` 'sha256-${createHash('sha256').update(importMap).digest('base64')}'`;
  return (
    `default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'${inline}; connect-src 'self'; ` +
    "frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
  );
}

type Files = Map<string, { type: string; body: Buffer }>;

/**
 * The files of `dir` the dashboard may serve, by name; with `folders`, also those of its folders, by
 * `<folder>/<name>` (one level deep).
 */
function readFiles(dir: string, folders = false): Files {
  const files: Files = new Map();
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (folders)
        for (const [name, file] of readFiles(path.join(dir, entry.name))) files.set(`${entry.name}/${name}`, file);
      continue;
    }
    const type = TYPES[path.extname(entry.name)];
    if (type) files.set(entry.name, { type, body: readFileSync(path.join(dir, entry.name)) });
  }
  return files;
}

export function registerDashboard(app: ApiApp, dir = WEB_DIR): void {
  const files = readFiles(dir, true);
  const require = createRequire(import.meta.url);
  // A package's main module sits beside the modules it imports.
  const vendor = new Map(
    Object.entries(VENDOR_MODULES).map(([name, module]) => [name, readFiles(path.dirname(require.resolve(module)))]),
  );
  const index = files.get('index.html');
  if (!index) throw new Error(`The dashboard's index.html is missing from ${dir}`);
  const csp = contentSecurityPolicy(index.body.toString('utf8'));

  const headers = (type: string) => ({
    'content-type': type,
    'cache-control': 'no-cache',
    'content-security-policy': csp,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  });
  app.get('/', { schema: { hide: true } }, async (_request, reply) =>
    reply.headers(headers(index.type)).send(index.body),
  );
  app.get<{ Params: { file: string } }>('/dashboard/:file', { schema: { hide: true } }, async (request, reply) => {
    const file = files.get(request.params.file);
    if (!file) throw new ServiceError('NOT_FOUND', `No dashboard file ${request.params.file}`);
    return reply.headers(headers(file.type)).send(file.body);
  });
  app.get<{ Params: { folder: string; file: string } }>(
    '/dashboard/:folder/:file',
    { schema: { hide: true } },
    async (request, reply) => {
      const name = `${request.params.folder}/${request.params.file}`;
      const file = files.get(name);
      if (!file) throw new ServiceError('NOT_FOUND', `No dashboard file ${name}`);
      return reply.headers(headers(file.type)).send(file.body);
    },
  );
  app.get<{ Params: { name: string; file: string } }>(
    '/dashboard/vendor/:name/:file',
    { schema: { hide: true } },
    async (request, reply) => {
      const { name, file } = request.params;
      const found = vendor.get(name)?.get(file);
      if (!found || found.type !== TYPES['.js'])
        throw new ServiceError('NOT_FOUND', `No dashboard file vendor/${name}/${file}`);
      return reply.headers(headers(found.type)).send(found.body);
    },
  );
}
