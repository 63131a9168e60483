/**
 * `greenline serve` as a real process: bootstrap token printed once, health, clean stop on SIGTERM,
 * and one PR merged end to end through real git and the built-in CI command.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI_ARGS, ROOT, cleanEnv, runCli } from './run-cli.js';
import { makeTempDirSync, removeTempDir } from '../helpers/temp-dir.js';

let dir: string;
const children: ChildProcess[] = [];
beforeAll(() => { dir = makeTempDirSync('greenline-serve-'); });
afterEach(() => { for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL'); });
afterAll(() => removeTempDir(dir));

interface Running { child: ChildProcess; url: string; stdout: () => string; exited: Promise<number | null> }

async function serve(dataDir: string, extra: string[] = []): Promise<Running> {
  const child = spawn(process.execPath, [...CLI_ARGS, 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn', ...extra],
    { cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { err += d.toString(); });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 30_000;
  while (!/listening on (\S+)/.test(out)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`serve did not start: ${out}\n${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, url: /listening on (\S+)/.exec(out)![1]!, stdout: () => out, exited };
}

async function api(url: string, token: string, path: string, body: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${url}/v1/${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-token': token }, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

describe('greenline serve', () => {
  it('prints the bootstrap token once, answers /healthz, and stops cleanly on SIGTERM', async () => {
    const dataDir = join(dir, 'first');
    const first = await serve(dataDir);
    const token = /^Token: (gl_\S+)$/m.exec(first.stdout())?.[1];
    expect(token).toBeDefined();
    expect(first.stdout()).toContain('shown ONCE');
    expect(await (await fetch(`${first.url}/healthz`)).json()).toEqual({ status: 'ok' });
    const unauthorized = await api(first.url, 'gl_wrong', 'getQueue', { repo: { host: 'h', owner: 'o', name: 'n' }, targetBranch: 'main' });
    expect(unauthorized.status).toBe(401);
    const authorized = await api(first.url, token!, 'getQueue', { repo: { host: 'h', owner: 'o', name: 'n' }, targetBranch: 'main' });
    expect(authorized.status).toBe(404);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(first.stdout()).toContain('greenline stopped');

    const second = await serve(dataDir);
    expect(second.stdout()).not.toContain('Token:');
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
  });

  it('fails with a clear message when the port is taken', async () => {
    const a = await serve(join(dir, 'port-a'));
    const port = new URL(a.url).port;
    const r = await runCli(['serve', '--port', port, '--data-dir', join(dir, 'port-b')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/EADDRINUSE/);
  });

  it('merges a PR end to end: real git remote, built-in CI command, v1 API', async () => {
    const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8',
      env: { ...process.env, GIT_AUTHOR_NAME: 'Ada', GIT_AUTHOR_EMAIL: 'ada@example.com', GIT_COMMITTER_NAME: 'Ada', GIT_COMMITTER_EMAIL: 'ada@example.com' } }).trim();
    const remote = join(dir, 'remote.git');
    const work = join(dir, 'work');
    git(dir, 'init', '-q', '--bare', '-b', 'main', remote);
    git(dir, 'clone', '-q', remote, work);
    writeFileSync(join(work, 'README'), 'hello\n');
    git(work, 'add', '.');
    git(work, 'commit', '-q', '-m', 'initial');
    git(work, 'push', '-q', 'origin', 'HEAD:main');
    const initial = git(work, 'rev-parse', 'HEAD');
    git(work, 'checkout', '-q', '-b', 'feature');
    writeFileSync(join(work, 'feature.txt'), 'new\n');
    git(work, 'add', '.');
    git(work, 'commit', '-q', '-m', 'Add feature');
    git(work, 'push', '-q', 'origin', 'HEAD:refs/pull/1/head');

    const dataDir = join(dir, 'e2e');
    const connected = await runCli(['repo', 'connect', 'github.com/acme/web', '--org', 'default', '--forge', 'git',
      '--remote', remote, '--ci-command', 'test -f feature.txt', '--data-dir', dataDir]);
    expect(connected.code).toBe(0);
    const token = (await runCli(['token', 'create', '--org', 'default', '--data-dir', dataDir])).stdout.trimEnd().split('\n').at(-1)!;
    const s = await serve(dataDir, ['--poll-interval', '1']);

    const key = { repo: { host: 'github.com', owner: 'acme', name: 'web' }, targetBranch: 'main' };
    expect((await api(s.url, token, 'createQueue', key)).status).toBe(200);
    expect((await api(s.url, token, 'submitPullRequest', { ...key, pr: { number: 1 } })).status).toBe(200);
    let state = '';
    const deadline = Date.now() + 40_000;
    while (state !== 'MERGED' && state !== 'FAILED' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      state = (await api(s.url, token, 'getSubmittedPullRequest', { ...key, pr: { number: 1 } })).json.state;
    }
    expect(state).toBe('MERGED');
    // Squash (the default method): one new commit on main whose tree has the PR's file.
    git(work, 'fetch', '-q', 'origin');
    expect(git(work, 'show', 'origin/main:feature.txt')).toBe('new');
    expect(git(work, 'log', '--format=%s', 'origin/main')).toMatch(/Add feature/);
    expect(git(work, 'rev-parse', 'origin/main^')).toBe(initial);
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
  });
});
