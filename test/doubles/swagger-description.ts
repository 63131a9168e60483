/**
 * A Swagger 2.0 API description as a checker for a fake of that API: which operation a `METHOD path`
 * is (path templates under the document's `basePath`; literal segments win over parameters), whether
 * a request is one the API takes (path and query parameters by their declared types, unknown query
 * parameters, the JSON body with no field the API does not know: request objects are closed, since a
 * field the server ignores is a field the client believes has an effect) and whether an answer is one
 * it gives (a documented status, a body valid against that status's schema). Compiled per operation
 * on first use with Ajv; Swagger's schema dialect is JSON Schema draft 4's, which Ajv reads as is once
 * `#/definitions` references are pointed at the document.
 *
 * What a server built from Go structs does that its document does not say, allowed for every
 * description (`nullable`): a property that is a pointer, slice or map in Go (a `$ref`, an array, an
 * object, a date-time) may be `null`. Error answers any route may give carry `{ message, url }`.
 * Departures of one document from its server (a value the server sends that its enum lacks) are
 * passed in as `allowances`, each named where it is made.
 */
import { readFileSync } from 'node:fs';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

type Json = Record<string, unknown>;

// ajv-formats is CommonJS: its default export arrives as the module object under NodeNext.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as unknown as (
  ajv: Ajv,
) => void;

export interface Violation {
  method: string;
  path: string;
  message: string;
}

export interface SwaggerOperation {
  method: string;
  /** The path template under basePath, e.g. `/repos/{owner}/{repo}/pulls/{index}`. */
  template: string;
  operationId: string;
  /** Parameters by `in:name` (`path:owner`, `query:page`, `body:body`). */
  params: Map<string, Json>;
  /** Answers by status (`200`, `404`), their `$ref`s followed. */
  responses: Map<string, Json>;
}

export interface SwaggerMatch {
  op: SwaggerOperation;
  /** Path parameters by name, decoded. */
  pathParams: Record<string, string>;
}

interface Node {
  literal: Map<string, Node>;
  /** Segments of literal text and parameters, e.g. `{index}.{diffType}`, by their pattern. */
  mixed: Map<string, { re: RegExp; node: Node }>;
  param: Node | null;
  ops: Map<string, SwaggerOperation>;
}

const newNode = (): Node => ({ literal: new Map(), mixed: new Map(), param: null, ops: new Map() });

/** `{index}.{diffType}` → a pattern capturing each parameter. */
const mixedPattern = (seg: string): RegExp =>
  new RegExp(
    `^${seg
      .split(/\{[^}]+\}/)
      .map((lit) => lit.replace(/[.+?^${}()|[\]\\*]/g, '\\$&'))
      .join('([^/]+?)')}$`,
  );

/** A schema change one document needs to describe what its server sends: `definition.property` takes `also`. */
export interface Allowance {
  definition: string;
  property: string;
  /** Values the server sends beside the enum's. */
  also: unknown[];
  why: string;
}

/** Statuses any route may answer with an error body, documented or not (auth, validation, server errors). */
const ANY_ROUTE = new Set([401, 403, 404, 422, 500]);

const ERROR_BODY: Json = {
  type: 'object',
  properties: { message: { type: 'string' }, url: { type: 'string' } },
  required: ['message'],
};

export class SwaggerDescription {
  readonly doc: Json;
  readonly basePath: string;
  private readonly root = newNode();
  private readonly ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, logger: false });
  private readonly coercing = new Ajv({ strict: false, coerceTypes: true, validateSchema: false, logger: false });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(
    file: string,
    private readonly id: string,
    allowances: readonly Allowance[] = [],
  ) {
    this.doc = JSON.parse(readFileSync(file, 'utf8')) as Json;
    this.basePath = String(this.doc.basePath ?? '');
    const definitions = this.doc.definitions as Record<string, Json>;
    for (const a of allowances) {
      const props = definitions[a.definition]?.properties as Record<string, Json> | undefined;
      if (!props?.[a.property]) throw new Error(`allowance for ${a.definition}.${a.property}: no such property`);
      props[a.property] = { anyOf: [{ enum: a.also }, props[a.property]] };
    }
    for (const def of Object.values(definitions)) nullableGoFields(def);
    addFormats(this.ajv);
    addFormats(this.coercing);
    this.ajv.addSchema({ $id: id, definitions });
    for (const [template, item] of Object.entries(this.doc.paths as Record<string, Json>)) {
      let node = this.root;
      for (const seg of template.split('/').filter(Boolean)) {
        if (/^\{[^}]+\}$/.test(seg)) node = node.param ??= newNode();
        else if (seg.includes('{')) {
          if (!node.mixed.has(seg)) node.mixed.set(seg, { re: mixedPattern(seg), node: newNode() });
          node = node.mixed.get(seg)!.node;
        } else {
          if (!node.literal.has(seg)) node.literal.set(seg, newNode());
          node = node.literal.get(seg)!;
        }
      }
      for (const [method, spec] of Object.entries(item)) {
        if (!['get', 'post', 'put', 'patch', 'delete', 'head'].includes(method)) continue;
        const s = spec as Json;
        const params = new Map<string, Json>();
        for (const p of [...((item.parameters as Json[]) ?? []), ...((s.parameters as Json[]) ?? [])]) {
          const param = this.resolve(p);
          params.set(`${String(param.in)}:${String(param.name)}`, param);
        }
        const responses = new Map<string, Json>();
        for (const [status, r] of Object.entries((s.responses as Record<string, Json>) ?? {}))
          responses.set(status, this.resolve(r));
        node.ops.set(method.toUpperCase(), {
          method: method.toUpperCase(),
          template,
          operationId: String(s.operationId),
          params,
          responses,
        });
      }
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

  /** The operation for `METHOD path` (the path under basePath, percent-encoded as sent), or null. */
  find(method: string, rawPath: string): SwaggerMatch | null {
    const segs = rawPath.split('/').filter(Boolean);
    const walk = (node: Node, i: number, values: string[]): SwaggerMatch | null => {
      if (i === segs.length) {
        const op = node.ops.get(method);
        if (!op) return null;
        const names = [...op.template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
        return { op, pathParams: Object.fromEntries(names.map((n, k) => [n, values[k]!])) };
      }
      const seg = decodeURIComponent(segs[i]!);
      const lit = node.literal.get(seg);
      const viaLiteral = lit ? walk(lit, i + 1, values) : null;
      if (viaLiteral) return viaLiteral;
      for (const { re, node: next } of node.mixed.values()) {
        const m = re.exec(seg);
        const found = m ? walk(next, i + 1, [...values, ...m.slice(1)]) : null;
        if (found) return found;
      }
      return node.param ? walk(node.param, i + 1, [...values, seg]) : null;
    };
    return walk(this.root, 0, []);
  }

  /** What in a request the API would not take, in words (empty: it takes it). */
  checkRequest(
    method: string,
    rawPath: string,
    query: URLSearchParams,
    body: unknown,
  ): { match: SwaggerMatch | null; problems: string[] } {
    const match = this.find(method, rawPath);
    if (!match) return { match: null, problems: [`${this.id} has no ${method} ${rawPath}`] };
    const { op, pathParams } = match;
    const problems: string[] = [];
    const checkParam = (where: string, name: string, value: string) => {
      const p = op.params.get(`${where}:${name}`);
      if (!p) return problems.push(`${op.method} ${op.template} takes no ${where} parameter ${name}`);
      const key = `${op.operationId}:${where}:${name}`;
      let v = this.compiled.get(key);
      if (!v) {
        const { in: _in, name: _n, description: _d, required: _r, ...schema } = p;
        v = this.coercing.compile(schema);
        this.compiled.set(key, v);
      }
      if (!v(value)) problems.push(`${where} parameter ${name}=${value}: ${message(v, 'it')}`);
      return;
    };
    for (const [name, value] of Object.entries(pathParams)) checkParam('path', name, value);
    for (const [name, value] of query) checkParam('query', name, value);
    for (const [key, p] of op.params)
      if (key.startsWith('query:') && p.required === true && !query.has(String(p.name)))
        problems.push(`query parameter ${String(p.name)} is required`);
    const bodyParam = [...op.params.values()].find((p) => p.in === 'body');
    if (body !== null && body !== undefined) {
      if (!bodyParam) problems.push(`${op.method} ${op.template} takes no JSON body`);
      else {
        const v = this.validator(`${op.operationId}:request`, () => this.closed(bodyParam.schema as Json, 0));
        if (!v(body)) problems.push(`body: ${message(v)}`);
      }
    } else if (bodyParam?.required === true) problems.push(`${op.method} ${op.template} requires a JSON body`);
    return { match, problems };
  }

  /** What in an answer the API would not give, in words (empty: it answers so). */
  checkResponse(op: SwaggerOperation, status: number, body: unknown): string[] {
    const r = op.responses.get(String(status)) ?? op.responses.get('default');
    if (!r) {
      if (ANY_ROUTE.has(status)) return this.checkError(status, body);
      const known = [...op.responses.keys()].join(', ');
      return [`${this.id} does not answer ${op.method} ${op.template} with ${status} (it documents ${known})`];
    }
    if (status >= 400) return this.checkError(status, body);
    if (!r.schema)
      return body === null || body === undefined ? [] : [`answer ${status} has a body; none is documented`];
    const v = this.validator(`${op.operationId}:${status}`, () => this.rebased(r.schema));
    return v(body) ? [] : [`answer ${status}: ${message(v)}`];
  }

  /** Error answers: `{ message, url }` (errata: documented as headers, sent as a body). */
  private checkError(status: number, body: unknown): string[] {
    if (body === null || body === undefined) return [];
    const v = this.validator('error', () => ERROR_BODY);
    return v(body) ? [] : [`error answer ${status}: ${message(v)}`];
  }

  private validator(key: string, schema: () => unknown): ValidateFunction {
    let v = this.compiled.get(key);
    if (!v) {
      v = this.ajv.compile(schema() as Json);
      this.compiled.set(key, v);
    }
    return v;
  }

  /** `$ref`s of an operation's own schema pointed at the document added to Ajv. */
  private rebased(s: unknown): unknown {
    if (!s || typeof s !== 'object') return s;
    if (Array.isArray(s)) return s.map((x) => this.rebased(x));
    const out: Json = {};
    for (const [k, v] of Object.entries(s as Json))
      out[k] = k === '$ref' && typeof v === 'string' ? `${this.id}${v}` : this.rebased(v);
    return out;
  }

  /** A request schema with its `$ref`s inlined and its objects closed (`additionalProperties: false`). */
  private closed(s: unknown, depth: number): unknown {
    if (!s || typeof s !== 'object' || depth > 30) return s;
    if (Array.isArray(s)) return s.map((x) => this.closed(x, depth + 1));
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
      else out[k] = this.closed(v, depth + 1);
    }
    if (out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
    return out;
  }
}

/** Properties that are pointers, slices, maps or times in Go may come back `null`: in place. */
function nullableGoFields(def: Json): void {
  const props = def.properties as Record<string, Json> | undefined;
  if (!props) return;
  for (const [name, p] of Object.entries(props)) {
    const pointerLike =
      typeof p.$ref === 'string' ||
      p.type === 'array' ||
      p.type === 'object' ||
      (p.type === 'string' && p.format === 'date-time');
    if (pointerLike) props[name] = { anyOf: [{ type: 'null' }, p] };
    if (p.type === 'object') nullableGoFields(p);
  }
}

function message(v: ValidateFunction, whole = '(body)'): string {
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
