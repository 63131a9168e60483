/**
 * Writes the subset of GitHub's published descriptions that the fake of GitHub is checked against
 * (test/fixtures/github/, see its README): from @octokit/openapi's `api.github.com.json` (13 MB),
 * every path with every operation (for routing: which operation a URL is, literal segments before
 * parameters), the operations the fake serves in full and the rest reduced to their id and path
 * parameters, marked `x-left-out`; from @octokit/openapi-webhooks' `api.github.com.json`, the
 * webhooks of the events tests deliver in full and the rest marked `x-left-out`; of each, the
 * components those reference. Both lists are test/forge/github/fake-operations.ts.
 *
 * `npx tsx scripts/github-description-subset.ts` writes the files;
 * test/forge/github/description-subset.slow.test.ts fails when they differ from what
 * `githubDescriptionSubset()` makes of the installed packages.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FAKE_OPERATIONS, FAKE_WEBHOOK_EVENTS } from '../test/forge/github/fake-operations.js';

type Json = Record<string, unknown>;

export const SUBSET_FILES = {
  openapi: fileURLToPath(new URL('../test/fixtures/github/openapi-subset.json', import.meta.url)),
  webhooks: fileURLToPath(new URL('../test/fixtures/github/webhooks-subset.json', import.meta.url)),
};

const SOURCES = {
  openapi: { pkg: '@octokit/openapi', file: 'generated/api.github.com.json' },
  webhooks: { pkg: '@octokit/openapi-webhooks', file: 'generated/api.github.com.json' },
};

const require = createRequire(import.meta.url);

function load(source: { pkg: string; file: string }): { doc: Json; from: string } {
  const doc = JSON.parse(readFileSync(require.resolve(`${source.pkg}/${source.file}`), 'utf8')) as Json;
  const { version } = JSON.parse(readFileSync(require.resolve(`${source.pkg}/package.json`), 'utf8')) as {
    version: string;
  };
  return { doc, from: `${source.pkg}@${version} ${source.file}` };
}

/** The `#/components/…` a part of the document refers to, and what those refer to, copied. */
function referenced(doc: Json, roots: unknown[]): Json {
  const out: Record<string, Json> = {};
  const todo = [...roots];
  while (todo.length > 0) {
    const x = todo.pop();
    if (!x || typeof x !== 'object') continue;
    if (Array.isArray(x)) {
      todo.push(...x);
      continue;
    }
    for (const [k, v] of Object.entries(x as Json)) {
      if (k === '$ref' && typeof v === 'string') {
        const [, , kind, name] = v.split('/') as [string, string, string, string];
        const from = (doc.components as Record<string, Json>)[kind]!;
        out[kind] ??= {};
        if (!(name in out[kind]!)) {
          out[kind]![name] = from[name];
          todo.push(from[name]);
        }
      } else todo.push(v);
    }
  }
  const sorted = (o: Json) =>
    Object.fromEntries(
      Object.keys(o)
        .sort()
        .map((k) => [k, o[k]]),
    );
  return sorted(Object.fromEntries(Object.entries(out).map(([kind, items]) => [kind, sorted(items)])));
}

/** The REST description: every path, the fake's operations in full. */
function openapiSubset(): Json {
  const { doc, from } = load(SOURCES.openapi);
  const served = new Set<string>(FAKE_OPERATIONS);
  const kept: unknown[] = [];
  const found = new Set<string>();
  const paths: Record<string, Json> = {};
  for (const [template, item] of Object.entries(doc.paths as Record<string, Json>)) {
    const out: Json = {};
    for (const [method, spec] of Object.entries(item)) {
      const op = spec as Json;
      if (method === 'parameters' || served.has(String(op.operationId))) {
        out[method] = spec;
        kept.push(spec);
        found.add(String(op.operationId));
        continue;
      }
      const pathParams = ((op.parameters as Json[]) ?? [])
        .map((p) => (typeof p.$ref === 'string' ? (resolve(doc, p.$ref) as Json) : p))
        .filter((p) => p.in === 'path')
        .map((p) => ({
          name: p.name,
          in: 'path',
          required: true,
          schema: p.schema,
          'x-multi-segment': p['x-multi-segment'],
        }));
      out[method] = { operationId: op.operationId, 'x-left-out': true, parameters: pathParams, responses: {} };
      kept.push(pathParams);
    }
    paths[template] = out;
  }
  const missing = [...served].filter((id) => !found.has(id));
  if (missing.length > 0) throw new Error(`GitHub's description has no operation ${missing.join(', ')}`);
  return {
    openapi: doc.openapi,
    info: { title: (doc.info as Json).title, version: (doc.info as Json).version, 'x-subset-of': from },
    paths,
    components: referenced(doc, kept),
  };
}

/** The webhook schemas: the events tests deliver in full. */
function webhooksSubset(): Json {
  const { doc, from } = load(SOURCES.webhooks);
  const events = new Set(FAKE_WEBHOOK_EVENTS.map((e) => e.replaceAll('_', '-')));
  const kept: unknown[] = [];
  const webhooks: Record<string, Json> = {};
  for (const [key, item] of Object.entries(doc.webhooks as Record<string, Json>)) {
    const post = item.post as Json;
    const event = String(post.operationId).split('/')[0]!;
    if (events.has(event)) {
      webhooks[key] = item;
      kept.push(item);
    } else webhooks[key] = { post: { operationId: post.operationId, 'x-left-out': true } };
  }
  return {
    openapi: doc.openapi,
    info: { title: (doc.info as Json).title, version: (doc.info as Json).version, 'x-subset-of': from },
    webhooks,
    components: referenced(doc, kept),
  };
}

function resolve(doc: Json, ref: string): unknown {
  return ref
    .slice(2)
    .split('/')
    .reduce<unknown>((o, k) => (o as Json)[k], doc);
}

/** The two subsets as the files hold them. */
export function githubDescriptionSubset(): { openapi: string; webhooks: string } {
  return {
    openapi: `${JSON.stringify(openapiSubset(), null, 1)}\n`,
    webhooks: `${JSON.stringify(webhooksSubset(), null, 1)}\n`,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const subset = githubDescriptionSubset();
  writeFileSync(SUBSET_FILES.openapi, subset.openapi);
  writeFileSync(SUBSET_FILES.webhooks, subset.webhooks);
  console.log(`wrote ${SUBSET_FILES.openapi} and ${SUBSET_FILES.webhooks}`);
}
