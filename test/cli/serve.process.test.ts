/**
 * `greenline serve` as a real process: bootstrap token printed once, health, clean stop on SIGTERM,
 * and one PR merged end to end through real git and the built-in CI command.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI_ARGS, ROOT, cleanEnv, runCli } from './run-cli.js';
import { makeTempDirSync, removeTempDir } from '../helpers/temp-dir.js';
import { listeningAddress } from '../helpers/listening.js';
import type { Json } from '../helpers/json.js';
import { waitUntil } from '../helpers/wait-until.js';

let dir: string;
const children: ChildProcess[] = [];
beforeAll(() => {
  dir = makeTempDirSync('greenline-serve-');
});
afterEach(() => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
});
afterAll(() => removeTempDir(dir));

interface Running {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/** `serve` on a free port; `dataDir` null = the default (./.greenline in `cwd`). */
async function serve(dataDir: string | null, extra: string[] = [], cwd = ROOT): Promise<Running> {
  const child = spawn(
    process.execPath,
    [
      ...CLI_ARGS,
      'serve',
      '--port',
      '0',
      ...(dataDir === null ? [] : ['--data-dir', dataDir]),
      '--log-level',
      'warn',
      ...extra,
    ],
    { cwd, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => {
    out += d.toString();
  });
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const url = await listeningAddress(child, () => out, 30_000);
  if (!url) throw new Error(`serve did not start: ${out}\n${err}`);
  return { child, url, stdout: () => out, stderr: () => err, exited };
}

async function api(url: string, token: string, path: string, body: unknown): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${url}/v1/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-token': token },
    body: JSON.stringify(body),
  });
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
    const unauthorized = await api(first.url, 'gl_wrong', 'getQueue', {
      repo: { host: 'h', owner: 'o', name: 'n' },
      targetBranch: 'main',
    });
    expect(unauthorized.status).toBe(401);
    const authorized = await api(first.url, token!, 'getQueue', {
      repo: { host: 'h', owner: 'o', name: 'n' },
      targetBranch: 'main',
    });
    expect(authorized.status).toBe(404);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(first.stdout()).toContain('greenline stopped');

    const second = await serve(dataDir);
    expect(second.stdout()).not.toContain('Token:');
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
  });

  it('prints a bootstrap token when `repo connect` and `token create` ran before the first start and every token is revoked; otherwise logs how to create one', async () => {
    const dataDir = join(dir, 'connected-first');
    const connected = await runCli([
      'repo',
      'connect',
      'github.com/acme/web',
      '--org',
      'default',
      '--forge',
      'git',
      '--remote',
      join(dir, 'none.git'),
      '--no-remote-check',
      '--data-dir',
      dataDir,
    ]);
    expect(connected.code).toBe(0);
    const created = await runCli(['token', 'create', '--org', 'default', '--data-dir', dataDir]);
    const id = /Created token (\S+)/.exec(created.stdout)![1]!;
    expect((await runCli(['token', 'revoke', id, '--data-dir', dataDir])).code).toBe(0);

    const first = await serve(dataDir);
    const token = /^Token: (gl_\S+)$/m.exec(first.stdout())?.[1];
    expect(first.stdout()).toContain('Organization: default');
    const queue = { repo: { host: 'github.com', owner: 'acme', name: 'web' }, targetBranch: 'main' };
    expect((await api(first.url, token!, 'createQueue', queue)).status).toBe(200);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);

    const second = await serve(dataDir, ['--log-level', 'info']);
    expect(second.stdout()).not.toContain('Token:');
    const hint = second
      .stderr()
      .split('\n')
      .filter((line) => line.includes('no bootstrap token'))
      .map((line) => JSON.parse(line).msg);
    expect(hint).toEqual([
      `API tokens exist, so no bootstrap token is printed; create another with: greenline token create --org default --name <label> --data-dir ${dataDir}`,
    ]);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    // Five processes in a row (three CLI commands, two servers): under a loaded machine this takes
    // longer than the default 30 s, after which the servers were killed and their exit read null.
  }, 90_000);

  it('logs JSON lines to a pipe, and pretty lines with --log-format pretty', async () => {
    const json = await serve(join(dir, 'logs'), ['--log-level', 'info']);
    const pretty = await serve(join(dir, 'logs-pretty'), ['--log-level', 'info', '--log-format', 'pretty']);
    for (const s of [json, pretty]) {
      s.child.kill('SIGTERM');
      expect(await s.exited).toBe(0);
    }
    const listening = (s: Running) =>
      s
        .stderr()
        .split('\n')
        .find((line) => line.includes('Server listening at'))!;
    expect(JSON.parse(listening(json))).toMatchObject({ level: 30, msg: `Server listening at ${json.url}` });
    expect(listening(pretty)).toMatch(
      new RegExp(`^\\[[0-9:.]+\\] INFO \\(\\d+\\): Server listening at ${pretty.url}$`),
    );
  });

  it('fails with a clear message when the port is taken', async () => {
    const a = await serve(join(dir, 'port-a'));
    const port = new URL(a.url).port;
    const r = await runCli(['serve', '--port', port, '--data-dir', join(dir, 'port-b')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/EADDRINUSE/);
  });

  /**
   * `absolute`: --data-dir and --remote absolute, commands run from the repository. `relative`: the
   * default data dir (./.greenline) and `--remote ../remote.git`, commands run from a project
   * directory, as in the README's quick start: the CI command must still find its checkout.
   */
  it.each(['absolute', 'relative'] as const)(
    'merges a PR end to end: real git remote, built-in CI command, v1 API (%s paths)',
    async (paths) => {
      const git = (cwd: string, ...args: string[]) =>
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
      const root = join(dir, paths);
      const remote = join(root, 'remote.git');
      const work = join(root, 'work');
      const project = join(root, 'project');
      mkdirSync(project, { recursive: true });
      git(root, 'init', '-q', '--bare', '-b', 'main', remote);
      git(root, 'clone', '-q', remote, work);
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

      const [dataDir, remoteArg, cwd] =
        paths === 'absolute' ? [join(root, 'data'), remote, ROOT] : [null, '../remote.git', project];
      const store = dataDir === null ? [] : ['--data-dir', dataDir];
      const connected = await runCli(
        [
          'repo',
          'connect',
          'github.com/acme/web',
          '--org',
          'default',
          '--forge',
          'git',
          '--remote',
          remoteArg,
          '--ci-command',
          'test -f feature.txt',
          ...store,
        ],
        {},
        cwd,
      );
      expect(connected.code, connected.stderr).toBe(0);
      const token = (await runCli(['token', 'create', '--org', 'default', ...store], {}, cwd)).stdout
        .trimEnd()
        .split('\n')
        .at(-1)!;
      const s = await serve(dataDir, ['--poll-interval', '1'], cwd);

      const key = { repo: { host: 'github.com', owner: 'acme', name: 'web' }, targetBranch: 'main' };
      expect((await api(s.url, token, 'createQueue', key)).status).toBe(200);
      expect((await api(s.url, token, 'submitPullRequest', { ...key, pr: { number: 1 } })).status).toBe(200);
      let state = '';
      await waitUntil(
        'PR 1 to merge or fail',
        40_000,
        async () => {
          state = (await api(s.url, token, 'getSubmittedPullRequest', { ...key, pr: { number: 1 } })).json.state;
          return state === 'MERGED' || state === 'FAILED' || undefined;
        },
        () => state,
        250,
      );
      expect(state).toBe('MERGED');
      // Squash (the default method): one new commit on main whose tree has the PR's file.
      git(work, 'fetch', '-q', 'origin');
      expect(git(work, 'show', 'origin/main:feature.txt')).toBe('new');
      expect(git(work, 'log', '--format=%s', 'origin/main')).toMatch(/Add feature/);
      expect(git(work, 'rev-parse', 'origin/main^')).toBe(initial);
      if (paths === 'relative') expect(existsSync(join(project, '.greenline', 'greenline.db'))).toBe(true);
      s.child.kill('SIGTERM');
      expect(await s.exited).toBe(0);
    },
  );
});
