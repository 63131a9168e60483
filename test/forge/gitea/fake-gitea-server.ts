/**
 * The HTTP server of the fake of Gitea and Forgejo (fake-gitea-api.ts): git's smart HTTP protocol at
 * `/<owner>/<name>.git`, and the API at the document's base path, each request and answer checked
 * against the dialect's Swagger document (a `violation` when the forge would not take or give it),
 * recorded, answered by operation id (fake-gitea-operations.ts) and paged as the forge pages.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Operation } from '../../doubles/api-description.js';
import type { FakeGiteaApi } from './fake-gitea-api.js';
import { type Answer, type Json, NOT_FOUND, pageOf, type RecordedCall } from './fake-gitea-model.js';
import { giteaOperations } from './fake-gitea-operations.js';
import { giteaDescription } from './gitea-description.js';

type Operations = ReturnType<typeof giteaOperations>;

/** The server of `fake` (not listening yet); an answer that fails is a violation and a 500. */
export function giteaServer(fake: FakeGiteaApi): Server {
  const handlers = giteaOperations(fake);
  return createServer((req, res) => {
    handle(fake, handlers, req, res).catch((err: unknown) => {
      fake.violations.push({
        method: req.method ?? '',
        path: req.url ?? '',
        message: `the fake failed: ${String(err)}`,
      });
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: String(err), url: '' }));
    });
  });
}

async function handle(
  fake: FakeGiteaApi,
  handlers: Operations,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const url = new URL(req.url ?? '/', fake.url);
  const raw = await readBody(req);
  const gitPath = /^\/([^/]+)\/([^/]+?)\.git(\/.*)$/.exec(url.pathname);
  if (gitPath) return serveGit(fake, req, res, url, raw, gitPath);
  if (url.pathname === '/api/forgejo/v1/version' && fake.dialect === 'forgejo')
    return send(res, 200, { version: '17.0.0-dev-38-gd883bd8f12' });
  const description = giteaDescription(fake.dialect);
  if (!url.pathname.startsWith(`${description.basePath}/`)) return send(res, 404, { message: 'Not Found', url: '' });
  const rawPath = url.pathname.slice(description.basePath.length);
  let body: unknown = null;
  if (raw.length > 0) {
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return send(res, 422, { message: 'invalid JSON body', url: '' });
    }
  }
  const method = (req.method ?? 'GET').toUpperCase();
  const call: RecordedCall = {
    method,
    path: decodeURIComponent(rawPath) + (url.search ? decodeURIComponent(url.search) : ''),
    body,
    authorization: req.headers.authorization ?? null,
    status: 0,
  };
  fake.calls.push(call);
  const { match, problems } = description.checkRequest(method, rawPath, url.searchParams, body);
  for (const message of problems) fake.violations.push({ method, path: call.path, message });
  let answer: Answer;
  if (!match) answer = { status: 404, body: { message: 'Not Found', url: '' } };
  else if (call.authorization !== `token ${fake.token}`)
    answer = { status: 401, body: { message: 'token is required', url: '' } };
  else answer = await answerOperation(fake, handlers, match.op, match.pathParams, url.searchParams, body);
  const headers: Record<string, string> = {};
  if (match && answer.status === 200 && Array.isArray(answer.body) && match.op.params.has('query:page')) {
    const paged = page(fake, answer.body, url, rawPath);
    answer = { ...answer, body: paged.items };
    Object.assign(headers, paged.headers);
  }
  if (match)
    for (const message of description.checkResponse(match.op, answer.status, answer.body))
      fake.violations.push({ method, path: call.path, message: `${message} (${match.op.operationId})` });
  call.status = answer.status;
  send(res, answer.status, answer.body, { ...headers, ...answer.headers });
}

/** A page of a list answer, with the forge's `Link` and `X-Total-Count` headers. */
function page(
  fake: FakeGiteaApi,
  items: unknown[],
  url: URL,
  rawPath: string,
): { items: unknown[]; headers: Record<string, string> } {
  const { page, limit } = pageOf(url.searchParams);
  const last = Math.max(1, Math.ceil(items.length / limit));
  const link = (p: number, rel: string) => {
    const q = new URLSearchParams(url.searchParams);
    q.set('page', String(p));
    q.set('limit', String(limit));
    return `<${fake.url}${giteaDescription(fake.dialect).basePath}${rawPath}?${q}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'));
  if (page > 1) links.push(link(1, 'first'), link(page - 1, 'prev'));
  return {
    items: items.slice((page - 1) * limit, page * limit),
    headers: { 'x-total-count': String(items.length), ...(links.length > 0 ? { link: links.join(',') } : {}) },
  };
}

/** The fake's own answer to an operation of the forge's document, for this repository only. */
async function answerOperation(
  fake: FakeGiteaApi,
  handlers: Operations,
  op: Operation,
  params: Record<string, string>,
  query: URLSearchParams,
  body: unknown,
): Promise<Answer> {
  const handler = handlers[op.operationId];
  if (!handler) return { status: 404, body: { message: `the fake does not serve ${op.operationId}`, url: '' } };
  const ofRepository = op.template.startsWith('/repos/{owner}/{repo}');
  if (ofRepository && `${params.owner}/${params.repo}`.toLowerCase() !== `${fake.owner}/${fake.name}`.toLowerCase())
    return NOT_FOUND;
  return handler({ params, query, body: (body ?? {}) as Json });
}

/** git's smart HTTP protocol (fake-gitea-git.ts), behind the token as Basic auth. */
async function serveGit(
  fake: FakeGiteaApi,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  raw: Buffer,
  [, owner, name, rest]: RegExpExecArray,
): Promise<void> {
  if (`${owner}/${name}`.toLowerCase() !== `${fake.owner}/${fake.name}`.toLowerCase()) {
    res.writeHead(404).end('Not found');
    return;
  }
  const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  const password = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':').slice(1).join(':') : null;
  if (password !== fake.token) {
    res.writeHead(401, { 'www-authenticate': 'Basic realm="Gitea"' }).end('Unauthorized');
    return;
  }
  await fake.repo.serve(req, res, url, raw, rest!, fake.tokenUser);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = body === null || body === undefined || status === 204 ? '' : JSON.stringify(body);
  res.writeHead(status, { ...(text ? { 'content-type': 'application/json;charset=utf-8' } : {}), ...headers });
  res.end(text);
}
