/**
 * GitHub's own REST API description (@octokit/openapi, api.github.com) as a checker for the fake of
 * GitHub: which operation a `METHOD path` is (path templates; literal segments win over parameters;
 * parameters GitHub marks `x-multi-segment`, such as `git/ref/{ref}` and `branches/{branch}`, may span
 * slashes), whether a request is one GitHub takes (path and query parameters, `per_page` ≤ 100, unknown
 * query parameters, the JSON body with no field and no enum value GitHub does not know) and whether an
 * answer is one GitHub gives (a documented status, a body valid against that status's schema), and the
 * documented example answer of an operation; and whether a webhook payload is one GitHub sends
 * (@octokit/openapi-webhooks). Loaded once per process and compiled per operation on
 * first use (Ajv); the description is OpenAPI 3.0, so `nullable` is rewritten to JSON Schema first.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

type Schema = Record<string, unknown>;
type Json = Record<string, unknown>;

export interface Violation {
  method: string;
  path: string;
  message: string;
}

export interface Operation {
  method: string;
  /** The path template, e.g. `/repos/{owner}/{repo}/pulls/{pull_number}`. */
  template: string;
  operationId: string;
  params: Map<string, Json>;
  spec: Json;
}

export interface Match {
  op: Operation;
  /** Path parameters by name, decoded. */
  pathParams: Record<string, string>;
}

interface Description {
  doc: Json;
  /** Segment tree of the path templates. */
  root: Node;
}

interface Node {
  literal: Map<string, Node>;
  /** The node after a parameter segment; `multi`: some template lets the parameter span slashes. */
  param: { multi: boolean; node: Node } | null;
  ops: Map<string, Operation>;
}

const newNode = (): Node => ({ literal: new Map(), param: null, ops: new Map() });
// ajv-formats is CommonJS: its default export arrives as the module object under NodeNext.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv,
) => void;

let loaded: Description | null = null;

function description(): Description {
  if (loaded) return loaded;
  const file = createRequire(import.meta.url).resolve('@octokit/openapi/generated/api.github.com.json');
  const doc = JSON.parse(readFileSync(file, 'utf8')) as Json;
  const components = doc.components as Record<string, Record<string, unknown>>;
  for (const s of Object.values(components.schemas!)) toJsonSchema(s);
  const root = newNode();
  for (const [template, item] of Object.entries(doc.paths as Record<string, Json>)) {
    const ops: Operation[] = [];
    for (const [method, spec] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete', 'head'].includes(method)) continue;
      const params = new Map<string, Json>();
      for (const p of [...((item.parameters as Json[]) ?? []), ...(((spec as Json).parameters as Json[]) ?? [])]) {
        const param = resolve(doc, p);
        params.set(`${String(param.in)}:${String(param.name)}`, param);
      }
      ops.push({
        method: method.toUpperCase(),
        template,
        operationId: String((spec as Json).operationId),
        params,
        spec: spec as Json,
      });
    }
    let node = root;
    for (const seg of template.split('/').filter(Boolean)) {
      const param = /^\{(.+)\}$/.exec(seg)?.[1];
      if (param) {
        node.param ??= { multi: false, node: newNode() };
        node.param.multi ||= ops.some((op) => op.params.get(`path:${param}`)?.['x-multi-segment'] === true);
        node = node.param.node;
      } else {
        if (!node.literal.has(seg)) node.literal.set(seg, newNode());
        node = node.literal.get(seg)!;
      }
    }
    for (const op of ops) if (!node.ops.has(op.method)) node.ops.set(op.method, op); // the first of two names for one URL
  }
  loaded = { doc, root };
  return loaded;
}

/** OpenAPI 3.0 → JSON Schema, in place: `nullable` becomes a `null` type (or an anyOf with one). */
function toJsonSchema(s: unknown): void {
  if (!s || typeof s !== 'object') return;
  if (Array.isArray(s)) {
    for (const x of s) toJsonSchema(x);
    return;
  }
  const o = s as Schema;
  for (const [k, v] of Object.entries(o)) if (k !== 'example' && k !== 'enum' && k !== 'default') toJsonSchema(v);
  if (o.nullable !== true) return;
  delete o.nullable;
  if (typeof o.type === 'string') {
    o.type = [o.type, 'null'];
    if (Array.isArray(o.enum) && !o.enum.includes(null)) o.enum.push(null);
  } else if (Object.keys(o).some((k) => ['$ref', 'anyOf', 'oneOf', 'allOf', 'enum'].includes(k))) {
    const rest = { ...o };
    for (const k of Object.keys(o)) if (k !== 'description') delete o[k];
    o.anyOf = [{ type: 'null' }, rest];
  }
}

/** A `$ref` to the description's components, followed (once, not recursively). */
function resolve(doc: Json, x: Json): Json {
  let at = x;
  while (typeof at.$ref === 'string') {
    at = at.$ref
      .slice(2)
      .split('/')
      .reduce<unknown>((o, k) => (o as Json)[k], doc) as Json;
  }
  return at;
}

/** The operation GitHub has for `METHOD path` (path without query, percent-encoded as sent), or null. */
export function findOperation(method: string, rawPath: string): Match | null {
  const segs = rawPath.split('/').filter(Boolean);
  const walk = (node: Node, i: number, values: string[]): Match | null => {
    if (i === segs.length) {
      const op = node.ops.get(method);
      if (!op) return null;
      const names = [...op.template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
      return { op, pathParams: Object.fromEntries(names.map((n, k) => [n, values[k]!])) };
    }
    const lit = node.literal.get(decodeURIComponent(segs[i]!));
    const viaLiteral = lit ? walk(lit, i + 1, values) : null;
    if (viaLiteral || !node.param) return viaLiteral;
    const { multi, node: next } = node.param;
    // A multi-segment parameter takes as few segments as leave a match (`commits/{ref}/check-runs`).
    for (let end = i + 1; end <= (multi ? segs.length : i + 1); end++) {
      const value = segs.slice(i, end).map(decodeURIComponent).join('/');
      const found = walk(next, end, [...values, value]);
      if (found) return found;
    }
    return null;
  };
  return walk(description().root, 0, []);
}

const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, logger: false });
const coercing = new Ajv({ strict: false, coerceTypes: true, validateSchema: false, logger: false });
addFormats(ajv);
addFormats(coercing);
let componentsAdded = false;
const compiled = new Map<string, ValidateFunction>();
const compiledParams = new Map<string, ValidateFunction>();

/** A validator of a schema from the description, its `$ref`s resolved in the description's components. */
function validator(key: string, schema: Json, strictBody = false): ValidateFunction {
  const found = compiled.get(key);
  if (found) return found;
  const { doc } = description();
  if (!componentsAdded) {
    ajv.addSchema({ $id: 'gh', components: { schemas: (doc.components as Json).schemas } });
    componentsAdded = true;
  }
  const prepared = strictBody ? strictObjects(doc, schema, 0) : rebase(schema);
  const v = ajv.compile(prepared as Schema);
  compiled.set(key, v);
  return v;
}

/** `$ref`s of an operation's own schema pointed at the components added as `base` (`gh`, `ghw`). */
function rebase(s: unknown, base = 'gh'): unknown {
  if (!s || typeof s !== 'object') return s;
  if (Array.isArray(s)) return s.map((x) => rebase(x, base));
  const out: Json = {};
  for (const [k, v] of Object.entries(s as Json))
    out[k] = k === '$ref' && typeof v === 'string' ? `${base}${v}` : k === 'example' ? v : rebase(v, base);
  return out;
}

/**
 * A request body schema with its `$ref`s inlined and objects that list their properties closed
 * (`additionalProperties: false` where the description says nothing): GitHub ignores or refuses fields
 * it does not take, and a field it ignores is a field greenline believes has an effect.
 */
function strictObjects(doc: Json, s: unknown, depth: number, inAllOf = false): unknown {
  if (!s || typeof s !== 'object' || depth > 30) return s;
  if (Array.isArray(s)) return s.map((x) => strictObjects(doc, x, depth + 1, inAllOf));
  let o = s as Json;
  if (typeof o.$ref === 'string') {
    const { $ref: _r, ...rest } = o;
    o = { ...resolve(doc, o), ...rest };
  }
  const out: Json = {};
  for (const [k, v] of Object.entries(o)) {
    if (k === 'example' || k === 'enum' || k === 'default') out[k] = v;
    else if (k === 'properties')
      out[k] = Object.fromEntries(
        Object.entries(v as Json).map(([name, p]) => [name, strictObjects(doc, p, depth + 1)]),
      );
    else out[k] = strictObjects(doc, v, depth + 1, k === 'allOf');
  }
  if (out.properties && out.additionalProperties === undefined && !inAllOf) out.additionalProperties = false;
  return out;
}

const ajvMessage = (v: ValidateFunction, whole = '(body)'): string =>
  (v.errors ?? [])
    .slice(0, 5)
    .map(
      (e) =>
        `${e.instancePath || whole} ${e.message ?? ''}${
          e.params && 'additionalProperty' in e.params ? `: ${String(e.params.additionalProperty)}` : ''
        }${e.params && 'allowedValues' in e.params ? ` (${(e.params.allowedValues as unknown[]).join(', ')})` : ''}`,
    )
    .join('; ');

/** What in a request GitHub would not take, in words (empty: GitHub takes it). */
export function checkRequest(
  method: string,
  rawPath: string,
  query: URLSearchParams,
  body: unknown,
): { match: Match | null; problems: string[] } {
  const match = findOperation(method, rawPath);
  if (!match) return { match: null, problems: [`GitHub has no ${method} ${rawPath}`] };
  const { op, pathParams } = match;
  const problems: string[] = [];
  const checkParam = (where: string, name: string, value: string | undefined) => {
    const p = op.params.get(`${where}:${name}`);
    if (!p) return problems.push(`${op.method} ${op.template} takes no ${where} parameter ${name}`);
    if (value === undefined) return;
    const key = `${op.operationId}:${where}:${name}`;
    let v = compiledParams.get(key);
    if (!v) {
      const schema = { ...((p.schema as Json) ?? {}) };
      if (name === 'per_page') schema.maximum = 100; // "The number of results per page (max 100)"
      v = coercing.compile(schema);
      compiledParams.set(key, v);
    }
    if (!v(value)) problems.push(`${where} parameter ${name}=${value}: ${ajvMessage(v, 'it').trim()}`);
    return;
  };
  for (const [name, value] of Object.entries(pathParams)) checkParam('path', name, value);
  for (const [name, value] of query) checkParam('query', name, value);
  for (const [key, p] of op.params)
    if (key.startsWith('query:') && p.required === true && !query.has(String(p.name)))
      problems.push(`query parameter ${String(p.name)} is required`);
  const requestBody = op.spec.requestBody ? resolve(description().doc, op.spec.requestBody as Json) : undefined;
  const schema = (requestBody?.content as Json | undefined)?.['application/json'] as Json | undefined;
  if (body !== null && body !== undefined) {
    if (!schema?.schema) problems.push(`${op.method} ${op.template} takes no JSON body`);
    else {
      const v = validator(`${op.operationId}:request`, schema.schema as Json, true);
      if (!v(body)) problems.push(`body: ${ajvMessage(v)}`);
    }
  } else if (requestBody?.required === true) problems.push(`${op.method} ${op.template} requires a JSON body`);
  return { match, problems };
}

/** The documented answer of `op` for `status` (its `$ref` followed), or null when GitHub never answers so. */
function documented(op: Operation, status: number): Json | null {
  const responses = op.spec.responses as Record<string, Json>;
  const r = responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
  return r ? resolve(description().doc, r) : null;
}

/**
 * Answers GitHub documents for every endpoint rather than per operation: 401 (bad credentials), 403 and
 * 429 of the primary and secondary rate limits (with their headers), 404 for what does not exist or is
 * not visible, and server errors.
 */
const ANY_ENDPOINT = new Set([401, 403, 404, 429, 500, 502, 503]);

/** What in an answer GitHub would not give, in words (empty: GitHub answers so). */
export function checkResponse(op: Operation, status: number, body: unknown): string[] {
  const r = documented(op, status);
  if (!r) {
    if (ANY_ENDPOINT.has(status)) return [];
    const known = Object.keys(op.spec.responses as Json).join(', ');
    return [`GitHub does not answer ${op.method} ${op.template} with ${status} (it documents ${known})`];
  }
  const schema = ((r.content as Json | undefined)?.['application/json'] as Json | undefined)?.schema as
    | Json
    | undefined;
  if (!schema) return body === null || body === undefined || status >= 400 ? [] : [`answer ${status} has no body`];
  const v = validator(`${op.operationId}:${status}`, schema);
  return v(body) ? [] : [`answer ${status}: ${ajvMessage(v)}`];
}

const examples = new Map<string, unknown>();

/**
 * GitHub's documented example answer of `op` for `status`, or undefined. A few of GitHub's examples
 * do not pass its own schemas (e.g. a requested team without `type`); a list item that does not is
 * left out of the example (its list is empty), so that only the fake's own fields can fail.
 */
export function exampleAnswer(op: Operation, status: number): unknown {
  const key = `${op.operationId}:${status}`;
  if (!examples.has(key)) {
    const r = documented(op, status);
    const json = (r?.content as Json | undefined)?.['application/json'] as Json | undefined;
    const first = Object.values((json?.examples as Record<string, Json>) ?? {})[0];
    const value = first ? resolve(description().doc, first).value : undefined;
    if (value !== undefined && json?.schema) {
      const v = validator(key, json.schema as Json);
      for (let round = 0; round < 20 && !v(value); round++) {
        const inList = (v.errors ?? [])
          .map((e) => /^(.*)\/\d+(\/|$)/.exec(e.instancePath)?.[1])
          .find((x) => x !== undefined);
        if (inList === undefined) break;
        const parts = inList.split('/').slice(1);
        const holder = parts.slice(0, -1).reduce<unknown>((o, k) => (o as Json)[k], value) as Json;
        if (parts.length === 0) break;
        holder[parts[parts.length - 1]!] = [];
      }
    }
    examples.set(key, value);
  }
  return structuredClone(examples.get(key));
}

let webhooks: { doc: Json; byKey: Record<string, Json> } | null = null;
const webhookAjv = new Ajv({ strict: false, allErrors: true, verbose: true, validateSchema: false, logger: false });
addFormats(webhookAjv);
const webhookValidators = new Map<string, ValidateFunction>();

/** The validator of a webhook payload (by event and action), or the reason there is none. */
function webhookValidator(event: string, payload: unknown): { key: string; v: ValidateFunction } | string {
  if (!webhooks) {
    const file = createRequire(import.meta.url).resolve('@octokit/openapi-webhooks/generated/api.github.com.json');
    const doc = JSON.parse(readFileSync(file, 'utf8')) as Json;
    const schemas = (doc.components as Json).schemas as Json;
    for (const s of Object.values(schemas)) toJsonSchema(s);
    webhookAjv.addSchema({ $id: 'ghw', components: { schemas } });
    webhooks = { doc, byKey: doc.webhooks as Record<string, Json> };
  }
  const action = (payload as { action?: unknown } | null)?.action;
  const kebab = (x: string) => x.replaceAll('_', '-');
  const key = [typeof action === 'string' ? `${kebab(event)}-${kebab(action)}` : null, kebab(event)].find(
    (k) => k !== null && webhooks!.byKey[k],
  );
  if (!key) return `GitHub sends no ${event}${typeof action === 'string' ? ` ${action}` : ''} delivery`;
  let v = webhookValidators.get(key);
  if (!v) {
    const body = (webhooks.byKey[key]!.post as Json).requestBody as Json;
    const schema = ((body.content as Json)['application/json'] as Json).schema as Json;
    v = webhookAjv.compile(rebase(schema, 'ghw') as Schema);
    webhookValidators.set(key, v);
  }
  return { key, v };
}

/**
 * What in a webhook delivery's payload GitHub would not send, in words (empty: GitHub sends it so),
 * against @octokit/openapi-webhooks' schema of the event and action (`pull_request` `opened` →
 * `pull-request-opened`; `push`, `status`: the event alone).
 */
export function checkWebhook(event: string, payload: unknown): string[] {
  const found = webhookValidator(event, payload);
  if (typeof found === 'string') return [found];
  return found.v(payload) ? [] : [`${found.key} payload: ${ajvMessage(found.v)}`];
}

/**
 * A payload brought to the shape GitHub sends today, in place: each field the schema requires and the
 * payload lacks is added with a plain value of its type (null where it may be null), and a value of the
 * wrong type or format is replaced so. For payloads written before a field existed (the examples of
 * @octokit/webhooks-examples); the payload's own values stay where they are valid.
 */
export function completeWebhook<T>(event: string, payload: T): T {
  const found = webhookValidator(event, payload);
  if (typeof found === 'string') return payload;
  const { v } = found;
  for (let round = 0; round < 10 && !v(payload); round++) {
    // Of alternatives (oneOf: a reviewer or a team), only the one the payload comes closest to is completed.
    const branch = (path: string) => /^(.*?\/oneOf\/)(\d+)/.exec(path);
    const counts = new Map<string, number>();
    for (const e of v.errors ?? []) {
      const b = branch(e.schemaPath);
      if (b) counts.set(b[0], (counts.get(b[0]) ?? 0) + 1);
    }
    const closest = (b: RegExpExecArray) =>
      [...counts].filter(([k]) => k.startsWith(b[1]!)).sort((x, y) => x[1] - y[1])[0]![0] === b[0];
    for (const e of v.errors ?? []) {
      const b = branch(e.schemaPath);
      if (b && !closest(b)) continue;
      const parts = e.instancePath.split('/').slice(1);
      const at = parts.reduce<unknown>((o, k) => (o as Json | undefined)?.[k], payload) as Json | undefined;
      if (e.keyword === 'required') {
        const name = (e.params as { missingProperty: string }).missingProperty;
        const props = ((e.parentSchema as Json | undefined)?.properties ?? {}) as Json;
        if (at && typeof at === 'object' && !(name in at))
          at[name] = plainValue(props[name] as Json | undefined, 0, name);
      } else if (['type', 'format', 'enum'].includes(e.keyword) && parts.length > 0) {
        const holder = parts.slice(0, -1).reduce<unknown>((o, k) => (o as Json)[k], payload) as Json;
        holder[parts[parts.length - 1]!] = plainValue(e.parentSchema as Json, 0, parts[parts.length - 1]);
      }
    }
  }
  return payload;
}

/**
 * A plain valid value of a schema: null where allowed, the first enum value, a typical string of a
 * format (an address for a `…url` field, as GitHub fills one the sender left out).
 */
function plainValue(schema: Json | undefined, depth: number, name = ''): unknown {
  if (!schema || depth > 8) return null;
  const s =
    typeof schema.$ref === 'string' ? resolve(webhooks!.doc, { $ref: schema.$ref.replace(/^ghw/, '') }) : schema;
  const types = ([] as unknown[]).concat(s.type ?? []);
  if (types.includes('null')) return null;
  if (Array.isArray(s.enum)) return s.enum[0];
  const choice = ((s.anyOf ?? s.oneOf) as Json[] | undefined)?.find((x) => x.type !== 'null');
  if (choice) return plainValue(choice, depth + 1);
  if (Array.isArray(s.allOf)) return Object.assign({}, ...(s.allOf as Json[]).map((x) => plainValue(x, depth + 1)));
  const format = s.format;
  if (types.includes('string'))
    return format === 'date-time'
      ? '2026-01-05T09:00:00Z'
      : format === 'uri' || format === 'uri-template' || name.endsWith('url')
        ? 'https://github.com'
        : format === 'email'
          ? 'octocat@github.com'
          : '';
  if (types.includes('integer') || types.includes('number')) return 0;
  if (types.includes('boolean')) return false;
  if (types.includes('array')) return [];
  const out: Json = {};
  const props = (s.properties ?? {}) as Json;
  for (const name of (s.required as string[] | undefined) ?? [])
    out[name] = plainValue(props[name] as Json, depth + 1, name);
  return out;
}
