/**
 * git's smart HTTP protocol as a forge serves it, for the fakes of forges: one request answered by
 * `git http-backend` (CGI) over the bare repositories under `root`, pushes allowed (a repository's own
 * hooks may refuse them), no housekeeping after a push (a forge runs it on its own schedule).
 */
import { spawn } from 'node:child_process';
import type { IncomingMessage } from 'node:http';

export interface GitHttpRequest {
  req: IncomingMessage;
  url: URL;
  body: Buffer;
  /** The directory holding the repositories. */
  root: string;
  /** The repository's path under `root` and what follows it: `/acme/web.git/info/refs`. */
  pathInfo: string;
  /** Who the forge authenticated. */
  user: string;
  /** More environment for git and the repository's hooks. */
  env?: Record<string, string>;
}

/** git's own answer to the request: its status, headers and body, for the caller to send. */
export async function gitHttpAnswer(
  request: GitHttpRequest,
): Promise<{ status: number; headers: Record<string, string>; body: Buffer }> {
  const out = await httpBackend(request);
  const split = out.indexOf('\r\n\r\n');
  const head = out.subarray(0, split).toString('latin1').split('\r\n');
  let status = 200;
  const headers: Record<string, string> = {};
  for (const line of head) {
    const [k, ...v] = line.split(':');
    if (k!.toLowerCase() === 'status') status = Number.parseInt(v.join(':').trim(), 10);
    else headers[k!.toLowerCase()] = v.join(':').trim();
  }
  return { status, headers, body: out.subarray(split + 4) };
}

async function httpBackend({ req, url, body, root, pathInfo, user, env }: GitHttpRequest): Promise<Buffer> {
  const child = spawn('git', ['http-backend'], {
    env: {
      ...process.env,
      ...env,
      GIT_CONFIG_COUNT: '2',
      GIT_CONFIG_KEY_0: 'http.receivepack',
      GIT_CONFIG_VALUE_0: 'true',
      GIT_CONFIG_KEY_1: 'receive.autogc',
      GIT_CONFIG_VALUE_1: 'false',
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: pathInfo,
      REQUEST_METHOD: req.method ?? 'GET',
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      CONTENT_LENGTH: String(body.length),
      REMOTE_USER: user,
      REMOTE_ADDR: '127.0.0.1',
      ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] } : {}),
      ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
    },
  });
  // git stops reading its input when it has what it needs (or fails): a write it never reads is no error here.
  child.stdin.on('error', () => {});
  child.stdin.end(body);
  const chunks: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => chunks.push(c));
  await new Promise<void>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', () => resolve());
  });
  return Buffer.concat(chunks);
}
