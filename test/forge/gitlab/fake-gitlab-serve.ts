/**
 * The fake GitLab's HTTP side: git's smart HTTP for the project (the token as Basic auth password;
 * a push checked against the token user's role and the protected branches by the repository's
 * pre-receive hook, fake-gitlab-push-checks.ts; GitLab brings its MRs up to date before answering a
 * push), and the API: each request checked against GitLab's OpenAPI description and answered by the
 * handler of its operation id (fake-gitlab-handlers.ts), lists paged as GitLab pages them, 429 while
 * a rate limit is asked for, and each answer checked against the description too.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gitHttpAnswer } from '../../helpers/git-http-backend.js';
import type { FakeGitlabApi } from './fake-gitlab-api.js';
import { pushCheckEnv } from './fake-gitlab-push-checks.js';
import type { RecordedCall } from './fake-gitlab-types.js';
import { gitlabDescription } from './gitlab-description.js';
import { type Answer, HANDLERS } from './fake-gitlab-handlers.js';
import { page, readBody, send } from './fake-gitlab-http.js';

type Json = Record<string, unknown>;

/** Answers one request to the fake: git's smart HTTP, or the API checked against GitLab's description. */
export async function serve(f: FakeGitlabApi, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', f.url);
  const raw = await readBody(req);
  const gitPath = /^\/(.+?)\.git(\/.*)$/.exec(url.pathname);
  if (gitPath) return serveGit(f, req, res, url, raw, gitPath[1]!, gitPath[2]!);
  const description = gitlabDescription();
  let body: unknown = null;
  if (raw.length > 0) {
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return send(res, 400, { message: '400 Bad request - body is not valid JSON' });
    }
  }
  const method = (req.method ?? 'GET').toUpperCase();
  const call: RecordedCall = {
    method,
    path: decodeURIComponent(url.pathname.replace(/^\/api\/v4/, '')) + decodeURIComponent(url.search),
    body,
    status: 0,
  };
  f.calls.push(call);
  const { match, problems } = description.checkRequest(method, url.pathname, url.searchParams, body);
  for (const message of problems) f.violations.push({ method, path: call.path, message });
  const token = req.headers['private-token'] ?? /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  let answer: Answer;
  if (f.limited && f.limited.requests > 0) {
    f.limited.requests--;
    answer = {
      status: 429,
      body: { message: 'Retry later' },
      headers: {
        'retry-after': String(f.limited.retryAfter),
        'ratelimit-limit': '600',
        'ratelimit-observed': '601',
        'ratelimit-remaining': '0',
        'ratelimit-reset': String(Math.floor(f.now() / 1000) + f.limited.retryAfter),
      },
    };
  } else if (!match) answer = { status: 404, body: { error: '404 Not Found' } };
  else if (token !== f.token) answer = { status: 401, body: { message: '401 Unauthorized' } };
  else if (match.pathParams.id !== undefined && !isProject(f, match.pathParams.id))
    answer = { status: 404, body: { message: '404 Project Not Found' } };
  else {
    const handler = HANDLERS[match.op.operationId];
    answer = handler
      ? await handler(f, { params: match.pathParams, query: url.searchParams, body: (body ?? {}) as Json })
      : { status: 404, body: { message: `404 the fake does not serve ${match.op.operationId}` } };
  }
  const headers: Record<string, string> = { ...answer.headers };
  if (match && answer.status === 200 && Array.isArray(answer.body) && match.op.params.has('query:page')) {
    const paged = page(answer.body, url, f.url);
    answer = { ...answer, body: paged.items };
    Object.assign(headers, paged.headers);
  }
  if (match)
    for (const message of description.checkResponse(match.op, answer.status, answer.body))
      f.violations.push({ method, path: call.path, message: `${message} (${match.op.operationId})` });
  call.status = answer.status;
  send(res, answer.status, answer.body, headers);
}

/** Whether `id` (decoded) names the project: its id, or its path in any letter case. */
function isProject(f: FakeGitlabApi, id: string): boolean {
  return id === String(f.projectId) || id.toLowerCase() === f.fullPath.toLowerCase();
}

/**
 * git over HTTP, the token as Basic auth's password, a push checked as GitLab checks it (the token
 * user's role); after a push, the MRs are brought up to date.
 */
async function serveGit(
  f: FakeGitlabApi,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  raw: Buffer,
  project: string,
  rest: string,
): Promise<void> {
  if (project.toLowerCase() !== f.fullPath.toLowerCase()) {
    res.writeHead(404).end('Not found');
    return;
  }
  const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  const password = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':').slice(1).join(':') : null;
  if (password !== f.token) {
    res.writeHead(401, { 'www-authenticate': 'Basic realm="GitLab"' }).end('HTTP Basic: Access denied');
    return;
  }
  const answer = await gitHttpAnswer({
    req,
    url,
    body: raw,
    root: f.root,
    pathInfo: `/${f.fullPath}.git${rest}`,
    user: f.tokenUser,
    env: pushCheckEnv(f.members.get(f.tokenUser) ?? 0, f.protectedBranches),
  });
  // GitLab has brought its MRs up to date by the time the push is answered.
  if (rest === '/git-receive-pack') await f.afterPush();
  res.writeHead(answer.status, answer.headers).end(answer.body);
}
