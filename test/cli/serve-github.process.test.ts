/**
 * `greenline serve` as a real process configured for GitHub (GREENLINE_GITHUB_* variables): the
 * webhook endpoint is served, checks signatures and acts on deliveries for a repository connected
 * with `repo connect --forge github`. GitHub itself is not reached (its base URL points nowhere).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { sign } from '@octokit/webhooks-methods';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI_ARGS, ROOT, cleanEnv, runCli } from './run-cli.js';
import { makeTempDirSync, removeTempDir } from '../helpers/temp-dir.js';
import { listeningAddress } from '../helpers/listening.js';
import type { Json } from '../helpers/json.js';

let dir: string;
const children: ChildProcess[] = [];
beforeAll(() => {
  dir = makeTempDirSync('greenline-serve-github-');
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});
afterAll(() => removeTempDir(dir));

const GITHUB_ENV = {
  GREENLINE_GITHUB_TOKEN: 'ghp_unused',
  GREENLINE_GITHUB_WEBHOOK_SECRET: 'hook-secret',
  GREENLINE_GITHUB_BASE_URL: 'http://127.0.0.1:9/api/v3',
};

async function serve(dataDir: string, env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    [...CLI_ARGS, 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'silent'],
    { cwd: ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const url = await listeningAddress(child, () => out, 30_000);
  if (!url) throw new Error(`serve did not start: ${out}`);
  return { url, child };
}

async function deliver(
  url: string,
  event: string,
  payload: unknown,
  secret: string | null,
): Promise<{ status: number; json: Json }> {
  const body = JSON.stringify(payload);
  const res = await fetch(`${url}/webhooks/github`, {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': `${event}-${Math.random()}`,
      ...(secret ? { 'x-hub-signature-256': await sign(secret, body) } : {}),
    },
  });
  return { status: res.status, json: await res.json() };
}

describe('greenline serve with the github forge', () => {
  it('serves POST /webhooks/github with signature checks; without a secret there is no such endpoint', async () => {
    const dataDir = join(dir, 'a');
    const connected = await runCli([
      'repo',
      'connect',
      'github.com/acme/web',
      '--org',
      'acme',
      '--forge',
      'github',
      '--data-dir',
      dataDir,
    ]);
    expect(connected.code).toBe(0);
    const { url, child } = await serve(dataDir, GITHUB_ENV);
    const ping = {
      zen: 'Keep it logically awesome.',
      hook_id: 1,
      repository: { name: 'web', html_url: 'https://github.com/acme/web', owner: { login: 'acme' } },
    };
    expect(await deliver(url, 'ping', ping, 'hook-secret')).toEqual({
      status: 200,
      json: expect.objectContaining({ event: 'ping', result: 'ignored' }),
    });
    expect((await deliver(url, 'ping', ping, 'wrong')).status).toBe(401);
    expect((await deliver(url, 'ping', ping, null)).status).toBe(401);
    const closed = {
      action: 'closed',
      number: 1,
      pull_request: { number: 1, merged: false, base: { ref: 'main' }, head: { sha: 'a'.repeat(40) } },
      repository: ping.repository,
    };
    // Stored and answered at once; processed in the background (no queue holds PR 1).
    expect((await deliver(url, 'pull_request', closed, 'hook-secret')).json.result).toBe('accepted');
    child.kill('SIGTERM');

    const plain = await serve(join(dir, 'b'), {});
    const res = await deliver(plain.url, 'ping', ping, 'hook-secret');
    expect(res.status).toBe(404);
  });
});
