/**
 * A published API description — OpenAPI 3.x or Swagger 2.0 — as the referee of a fake of that API:
 * - which operation a `METHOD path` is (path-tree.ts: literal segments win over parameters; GitHub's
 *   `x-multi-segment` parameters span slashes), so that a fake dispatches on the operation's id;
 * - whether a request is one the API takes: path and query parameters by their schemas, no query
 *   parameter it does not know, a JSON body only where it takes one, and a body with no field and no
 *   enum value it does not know (request objects are closed: a field the API ignores is a field the
 *   client believes has an effect);
 * - whether an answer is one it gives: a documented status (or one any operation may answer), a body
 *   valid against that status's schema;
 * - an operation's documented example answer, and whether a webhook payload (OpenAPI 3.1 `webhooks`)
 *   is one the API sends.
 * Schemas are compiled with Ajv (formats from ajv-formats) on first use, per operation, and kept
 * between test files (validator-cache.ts). OpenAPI 3.0's
 * `nullable` is rewritten to JSON Schema first; Swagger's `#/definitions` are JSON Schema draft 4's,
 * which Ajv reads as is. An operation marked `x-left-out` (a subset of a large description keeps
 * every path but only the operations a fake serves) routes as usual and is a violation to use.
 */
import { createHash } from 'node:crypto';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { PathTree, templateParams } from './path-tree.js';
import { cachedCompile } from './validator-cache.js';

export type Json = Record<string, unknown>;

/** What the API would not take or give: a request, and what is wrong with it or its answer. */
export interface Violation {
  method: string;
  path: string;
  message: string;
}

export interface Parameter {
  name: string;
  in: string;
  required: boolean;
  /** Its JSON schema (Swagger's parameter fields, OpenAPI's `schema`). */
  schema: Json;
}

export interface Operation {
  method: string;
  /** The path template (under Swagger's basePath), e.g. `/repos/{owner}/{repo}/pulls/{pull_number}`. */
  template: string;
  operationId: string;
  /** Parameters by `in:name` (`path:owner`, `query:page`). */
  params: Map<string, Parameter>;
  /** The JSON request body: its schema (null: it takes another type), and whether one is required. */
  body: { schema: Json | null; required: boolean } | null;
  /** Answers by documented status (`200`, `4XX`, `default`), `$ref`s followed. */
  responses: Map<string, { schema: Json | null; examples: Json[] }>;
  /** In a subset of the description, an operation kept only for routing. */
  leftOut: boolean;
}

export interface Match {
  op: Operation;
  /** Path parameters by name, decoded. */
  pathParams: Record<string, string>;
}

export interface DescriptionOptions {
  /** The API's name in violations (`GitHub`, `gitea`) and the id of its schemas in Ajv. */
  name: string;
  /** Statuses any operation may answer though it does not document them (auth, limits, server errors). */
  anyOperation: ReadonlySet<number>;
  /** The one body of every error answer (status ≥ 400), when the API sends one whatever it documents. */
  errorBody?: Json;
  /** A parameter's schema as the API enforces it where the description says so only in words. */
  parameterSchema?: (p: Parameter) => Json;
  /** What to do about an operation left out of a subset, appended to its violation. */
  leftOutHint?: string;
}

// ajv-formats is CommonJS: its default export arrives as the module object under NodeNext.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv,
) => void;

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head'];
const jsonContent = (x: Json | undefined): Json | undefined =>
  (x?.content as Json | undefined)?.['application/json'] as Json | undefined;

export class ApiDescription {
  readonly basePath: string;
  private readonly tree = new PathTree<Operation>();
  private readonly ajv = new Ajv({
    strict: false,
    allErrors: true,
    verbose: true,
    validateSchema: false,
    logger: false,
    code: { source: true },
  });
  private readonly coercing = new Ajv({ strict: false, coerceTypes: true, validateSchema: false, logger: false });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(
    readonly doc: Json,
    private readonly options: DescriptionOptions,
  ) {
    rewriteNullable(doc.components);
    rewriteNullable(doc.paths);
    rewriteNullable(doc.webhooks);
    this.basePath = String(doc.basePath ?? '');
    addFormats(this.ajv);
    addFormats(this.coercing);
    const components = doc.components as Json | undefined;
    this.ajv.addSchema({
      $id: options.name,
      ...(components?.schemas ? { components: { schemas: components.schemas } } : {}),
      ...(doc.definitions ? { definitions: doc.definitions } : {}),
    });
    for (const [template, item] of Object.entries((doc.paths as Record<string, Json>) ?? {}))
      for (const method of METHODS) {
        if (!item[method]) continue;
        const op = this.operation(template, method, item, item[method] as Json);
        this.tree.add(template, op.method, op, (name) => this.multiSegment(item, item[method] as Json, name));
      }
  }

  /** A `$ref` within the document, followed. */
  resolve(x: Json): Json {
    let at = x;
    while (typeof at.$ref === 'string')
      at = at.$ref
        .slice(2)
        .split('/')
        .reduce<unknown>((o, k) => (o as Json)[k], this.doc) as Json;
    return at;
  }

  private rawParams(item: Json, spec: Json): Json[] {
    return [...((item.parameters as Json[]) ?? []), ...((spec.parameters as Json[]) ?? [])].map((p) => this.resolve(p));
  }

  private multiSegment(item: Json, spec: Json, name: string): boolean {
    return this.rawParams(item, spec).some((p) => p.in === 'path' && p.name === name && p['x-multi-segment'] === true);
  }

  /** One operation of the document, in the same terms for OpenAPI 3 and Swagger 2. */
  private operation(template: string, method: string, item: Json, spec: Json): Operation {
    const params = new Map<string, Parameter>();
    let body: Operation['body'] = null;
    for (const p of this.rawParams(item, spec)) {
      if (p.in === 'body') body = { schema: (p.schema as Json) ?? null, required: p.required === true };
      else {
        const { in: _in, name: _n, description: _d, required: _r, ...swagger } = p;
        const schema = (p.schema as Json | undefined) ?? swagger;
        params.set(`${String(p.in)}:${String(p.name)}`, {
          name: String(p.name),
          in: String(p.in),
          required: p.required === true,
          schema,
        });
      }
    }
    if (spec.requestBody) {
      const rb = this.resolve(spec.requestBody as Json);
      body = { schema: (jsonContent(rb)?.schema as Json | undefined) ?? null, required: rb.required === true };
    }
    const responses = new Map<string, { schema: Json | null; examples: Json[] }>();
    for (const [status, raw] of Object.entries((spec.responses as Record<string, Json>) ?? {})) {
      const r = this.resolve(raw);
      const content = jsonContent(r);
      const schema = (content?.schema ?? r.schema ?? null) as Json | null;
      const examples = Object.values((content?.examples as Record<string, Json>) ?? {}).map((e) => this.resolve(e));
      responses.set(status, { schema, examples });
    }
    return {
      method: method.toUpperCase(),
      template,
      operationId: String(spec.operationId),
      params,
      body,
      responses,
      leftOut: spec['x-left-out'] === true,
    };
  }

  /** The operation for `METHOD path` (the path under basePath, percent-encoded as sent), or null. */
  find(method: string, rawPath: string): Match | null {
    const found = this.tree.find(method, rawPath);
    if (!found) return null;
    const names = templateParams(found.op.template);
    return { op: found.op, pathParams: Object.fromEntries(names.map((n, k) => [n, found.values[k]!])) };
  }

  /** What in a request the API would not take, in words (empty: it takes it). */
  checkRequest(
    method: string,
    rawPath: string,
    query: URLSearchParams,
    body: unknown,
  ): { match: Match | null; problems: string[] } {
    const match = this.find(method, rawPath);
    if (!match) return { match: null, problems: [`${this.options.name} has no ${method} ${rawPath}`] };
    const { op, pathParams } = match;
    const where = `${op.method} ${op.template}`;
    if (op.leftOut)
      return {
        match,
        problems: [`${op.operationId} (${where}) is left out of the description read${this.options.leftOutHint ?? ''}`],
      };
    const problems: string[] = [];
    const checkParam = (at: string, name: string, value: string) => {
      const p = op.params.get(`${at}:${name}`);
      if (!p) return problems.push(`${where} takes no ${at} parameter ${name}`);
      const key = `${op.operationId}:${at}:${name}`;
      let v = this.compiled.get(key);
      if (!v) {
        v = this.coercing.compile(this.options.parameterSchema?.(p) ?? p.schema);
        this.compiled.set(key, v);
      }
      if (!v(value)) problems.push(`${at} parameter ${name}=${value}: ${message(v, 'it')}`);
      return;
    };
    for (const [name, value] of Object.entries(pathParams)) checkParam('path', name, value);
    for (const [name, value] of query) checkParam('query', name, value);
    for (const p of op.params.values())
      if (p.in === 'query' && p.required && !query.has(p.name)) problems.push(`query parameter ${p.name} is required`);
    if (body !== null && body !== undefined) {
      if (!op.body?.schema) problems.push(`${where} takes no JSON body`);
      else {
        const schema = op.body.schema;
        const v = this.validator(`${op.operationId}:request`, () => this.closed(schema, 0));
        if (!v(body)) problems.push(`body: ${message(v)}`);
      }
    } else if (op.body?.required) problems.push(`${where} requires a JSON body`);
    return { match, problems };
  }

  /** The documented answer of `op` for `status`, or undefined. */
  private documented(op: Operation, status: number): { schema: Json | null; examples: Json[] } | undefined {
    const r = op.responses;
    return r.get(String(status)) ?? r.get(`${String(status)[0]}XX`) ?? r.get('default');
  }

  /** What in an answer the API would not give, in words (empty: it answers so). */
  checkResponse(op: Operation, status: number, body: unknown): string[] {
    const r = this.documented(op, status);
    const { errorBody } = this.options;
    if (!r && !this.options.anyOperation.has(status)) {
      const known = [...op.responses.keys()].join(', ');
      return [
        `${this.options.name} does not answer ${op.method} ${op.template} with ${status} (it documents ${known})`,
      ];
    }
    if (status >= 400 && errorBody) {
      if (body === null || body === undefined) return [];
      const v = this.validator('error', () => errorBody);
      return v(body) ? [] : [`error answer ${status}: ${message(v)}`];
    }
    if (!r?.schema)
      return body === null || body === undefined || status >= 400
        ? []
        : [`answer ${status} has a body; none is documented`];
    const schema = r.schema;
    const v = this.validator(`${op.operationId}:${status}`, () => this.rebased(schema));
    return v(body) ? [] : [`answer ${status}: ${message(v)}`];
  }

  /**
   * The documented example answer of `op` for `status`, or undefined; a fresh copy. Where an example
   * does not pass the description's own schema (GitHub's requested team without `type`), the list
   * holding the item that fails is emptied, so that only the fake's own fields can fail.
   */
  example(op: Operation, status: number): unknown {
    const key = `${op.operationId}:${status}:example`;
    if (!this.examples.has(key)) {
      const r = this.documented(op, status);
      const value = r?.examples[0]?.value;
      const schema = r?.schema;
      if (value !== undefined && schema) {
        const v = this.validator(`${op.operationId}:${status}`, () => this.rebased(schema));
        for (let round = 0; round < 20 && !v(value); round++) {
          const inList = (v.errors ?? [])
            .map((e) => /^(.*)\/\d+(\/|$)/.exec(e.instancePath)?.[1])
            .find((x) => x !== undefined);
          const parts = inList?.split('/').slice(1) ?? [];
          if (parts.length === 0) break;
          const holder = parts.slice(0, -1).reduce<unknown>((o, k) => (o as Json)[k], value) as Json;
          holder[parts[parts.length - 1]!] = [];
        }
      }
      this.examples.set(key, value);
    }
    return structuredClone(this.examples.get(key));
  }

  private readonly examples = new Map<string, unknown>();

  /**
   * The validator of webhook `key`'s payload (OpenAPI 3.1 `webhooks`, its `post` request body), or the
   * reason there is none (`absent`: the description has no such webhook; `left out` of a subset).
   */
  webhook(key: string): ValidateFunction | 'absent' | 'left out' {
    const post = ((this.doc.webhooks as Record<string, Json> | undefined)?.[key]?.post ?? null) as Json | null;
    if (!post) return 'absent';
    if (post['x-left-out'] === true) return 'left out';
    const schema = jsonContent(post.requestBody as Json)?.schema as Json;
    return this.validator(`webhook:${key}`, () => this.rebased(schema));
  }

  /** A schema's `$ref` (an Ajv reference, `GitHub#/components/…`, or the document's own), followed. */
  resolveSchema(s: Json): Json {
    if (typeof s.$ref !== 'string') return s;
    return this.resolve({ $ref: s.$ref.replace(/^[^#]*/, '') });
  }

  private validator(key: string, schema: () => unknown): ValidateFunction {
    let v = this.compiled.get(key);
    if (!v) {
      // The whole document decides what a schema's `$ref`s mean.
      this.docHash ??= createHash('sha256').update(JSON.stringify(this.doc)).digest('hex');
      v = cachedCompile(this.ajv, schema() as Json, `${this.options.name} ${this.docHash}`);
      this.compiled.set(key, v);
    }
    return v;
  }

  private docHash: string | null = null;

  /** `$ref`s of an operation's own schema pointed at the document added to Ajv. */
  private rebased(s: unknown): unknown {
    if (!s || typeof s !== 'object') return s;
    if (Array.isArray(s)) return s.map((x) => this.rebased(x));
    const out: Json = {};
    for (const [k, v] of Object.entries(s as Json))
      out[k] =
        k === '$ref' && typeof v === 'string' ? `${this.options.name}${v}` : k === 'example' ? v : this.rebased(v);
    return out;
  }

  /**
   * A request schema with its `$ref`s inlined and the objects that list their properties closed
   * (`additionalProperties: false` where the description says nothing), but for the parts of an
   * `allOf`, whose properties add up.
   */
  private closed(s: unknown, depth: number, inAllOf = false): unknown {
    if (!s || typeof s !== 'object' || depth > 30) return s;
    if (Array.isArray(s)) return s.map((x) => this.closed(x, depth + 1, inAllOf));
    let o = s as Json;
    if (typeof o.$ref === 'string') {
      const { $ref: _r, ...rest } = o;
      o = { ...this.resolve(o), ...rest };
    }
    const out: Json = {};
    for (const [k, v] of Object.entries(o)) {
      if (k === 'enum' || k === 'default' || k === 'example') out[k] = v;
      else if (k === 'properties')
        out[k] = Object.fromEntries(Object.entries(v as Json).map(([n, p]) => [n, this.closed(p, depth + 1)]));
      else out[k] = this.closed(v, depth + 1, k === 'allOf');
    }
    if (out.properties && out.additionalProperties === undefined && !inAllOf) out.additionalProperties = false;
    return out;
  }
}

/** OpenAPI 3.0 → JSON Schema, in place: `nullable` becomes a `null` type (or an anyOf with one). */
function rewriteNullable(s: unknown): void {
  if (!s || typeof s !== 'object') return;
  if (Array.isArray(s)) {
    for (const x of s) rewriteNullable(x);
    return;
  }
  const o = s as Json;
  for (const [k, v] of Object.entries(o))
    if (k !== 'example' && k !== 'examples' && k !== 'enum' && k !== 'default') rewriteNullable(v);
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

/** Ajv's errors in words: the first five, each with the field or value it names. */
export function message(v: ValidateFunction, whole = '(body)'): string {
  return (v.errors ?? [])
    .slice(0, 5)
    .map(
      (e) =>
        `${e.instancePath || whole} ${e.message ?? ''}${
          e.params && 'additionalProperty' in e.params ? `: ${String(e.params.additionalProperty)}` : ''
        }${e.params && 'allowedValues' in e.params ? ` (${(e.params.allowedValues as unknown[]).join(', ')})` : ''}`,
    )
    .join('; ')
    .trim();
}
