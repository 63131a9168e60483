/**
 * Push notifications end to end: a real bare repository whose post-receive hook runs
 * `greenline hook post-receive` against a real `greenline serve`. The server polls once an hour, so
 * only the notification can make it notice the push; it has, by the time `git push` returns.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeTempDirSync, removeTempDir } from '../helpers/temp-dir.js';
import { listeningAddress } from '../helpers/listening.js';
import type { Json } from '../helpers/json.js';
import { CLI_ARGS, cleanEnv, runCli } from './run-cli.js';

let dir: string;
let server: ChildProcess | null = null;
beforeAll(() => {
  dir = makeTempDirSync('greenline-hook-');
});
afterAll(async () => {
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((resolve) => server!.once('exit', resolve));
  }
  removeTempDir(dir);
});

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 'Ada',
      GIT_AUTHOR_EMAIL: 'ada@example.com',
      GIT_COMMITTER_NAME: 'Ada',
      GIT_COMMITTER_EMAIL: 'ada@example.com',
    },
  }).trim();

/** A shell word: the hook is a shell script. */
const quoted = (s: string): string => `'${s.replaceAll("'", `'\\''`)}'`;

it('a push to a queued PR reaches the server through the post-receive hook, before the push returns', async () => {
  const remote = join(dir, 'web.git');
  const work = join(dir, 'work');
  const dataDir = join(dir, 'data');
  git(dir, 'init', '-q', '--bare', '-b', 'main', remote);
  git(dir, 'clone', '-q', remote, work);
  writeFileSync(join(work, 'README'), 'hello\n');
  git(work, 'add', '.');
  git(work, 'commit', '-q', '-m', 'initial');
  git(work, 'push', '-q', 'origin', 'HEAD:main');
  git(work, 'checkout', '-q', '-b', 'feature');
  writeFileSync(join(work, 'feature.txt'), 'one\n');
  git(work, 'add', '.');
  git(work, 'commit', '-q', '-m', 'Add feature');
  git(work, 'push', '-q', 'origin', 'HEAD:refs/pull/1/head');

  const slug = 'example.com/team/web';
  const store = ['--data-dir', dataDir];
  const connected = await runCli([
    'repo',
    'connect',
    slug,
    '--org',
    'team',
    '--forge',
    'git',
    '--remote',
    remote,
    ...store,
  ]);
  expect(connected.code, connected.stderr).toBe(0);
  const token = (await runCli(['token', 'create', '--org', 'team', ...store])).stdout.trimEnd().split('\n').at(-1)!;

  server = spawn(process.execPath, [...CLI_ARGS, 'serve', '--port', '0', ...store, '--poll-interval', '3600'], {
    env: cleanEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  server.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  server.stderr!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const url = await listeningAddress(server, () => out, 60_000);
  expect(url, out).not.toBeNull();
  const api = async (op: string, body: unknown): Promise<Json> => {
    const res = await fetch(`${url}/v1/${op}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-token': token },
      body: JSON.stringify(body),
    });
    expect(res.status, op).toBe(200);
    return res.json();
  };
  const key = { repo: { host: 'example.com', owner: 'team', name: 'web' }, targetBranch: 'main' };
  await api('createQueue', key);
  await api('updateQueue', { ...key, state: 'PAUSED' });
  await api('submitPullRequest', { ...key, pr: { number: 1 } });
  const state = async () => (await api('getSubmittedPullRequest', { ...key, pr: { number: 1 } })).state;
  expect(await state()).not.toBe('CANCELLED');

  // The hook as the docs install it: the repository is found by its remote (the directory it runs in).
  mkdirSync(join(remote, 'hooks'), { recursive: true });
  const hook = join(remote, 'hooks', 'post-receive');
  const command = [process.execPath, ...CLI_ARGS, 'hook', 'post-receive', '--url', url!, '--token', token];
  writeFileSync(hook, `#!/bin/sh\nexec ${command.map(quoted).join(' ')}\n`);
  chmodSync(hook, 0o755);

  writeFileSync(join(work, 'feature.txt'), 'two\n');
  git(work, 'commit', '-q', '-am', 'Change feature');
  const pushed = spawnSync('git', ['push', 'origin', 'HEAD:refs/pull/1/head'], { cwd: work, encoding: 'utf8' });
  expect(pushed.status, pushed.stderr).toBe(0);
  // What the hook prints reaches the one who pushed.
  expect(pushed.stderr).toContain('remote: greenline told: 1 ref moved; 1 queue read now.');
  const entry = await api('getSubmittedPullRequest', { ...key, pr: { number: 1 } });
  expect(entry.state).toBe('CANCELLED');
  expect(JSON.stringify(entry)).toContain('PR_PUSHED_TO');
}, 120_000);

it('refuses a line that is not "<old> <new> <ref>", and sends nothing when nothing moved', () => {
  const hook = (input: string) =>
    spawnSync(
      process.execPath,
      [...CLI_ARGS, 'hook', 'post-receive', '--token', 'gl_x', '--url', 'http://127.0.0.1:9'],
      { input, encoding: 'utf8', env: cleanEnv() },
    );
  const bad = hook('main moved\n');
  expect(bad.status).toBe(2);
  expect(bad.stderr).toContain('Cannot read "main moved": a post-receive hook gets "<old sha> <new sha> <ref>" lines');
  // Nothing moved: the unreachable server is never asked.
  const nothing = hook('');
  expect(nothing.status, nothing.stderr).toBe(0);
  expect(nothing.stdout).toContain('No ref moved');
}, 60_000);
