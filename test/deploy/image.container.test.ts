/**
 * The container image, built from the Containerfile and run for real with podman, the way
 * docs/deploy.md describes it:
 *
 * - SQLite: one container with a data volume and a bare git remote mounted in; a token created with
 *   `podman exec … greenline token create`, the repository connected with `podman exec … greenline repo
 *   connect`; PRs submitted over HTTP are tested by the built-in CI inside the container and merged on
 *   the remote; docs/deploy.md's online SQLite backup, run as written, gives a sound copy; a new
 *   container on the same volume keeps the state; `podman stop` (SIGTERM) with a CI
 *   command running ends the container within 10 s, exit code 0.
 * - PostgreSQL: two containers (`--network host`, distinct ports, the machine's PostgreSQL) share one
 *   queue; the one driving it is killed, and the other takes the queue over and merges the next PR.
 *
 * Without podman (and no way to install it) the test fails with CI=true and is skipped elsewhere.
 * Everything started is removed afterwards: containers, volumes, temp dirs, the PostgreSQL database;
 * images stay in podman's store as a build cache.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GitRemote } from '../e2e/git-remote.js';
import { testDatabases, type TestDatabase } from '../helpers/databases.js';
import { CA_BUNDLE, ensurePodman, Podman, ROOT } from './podman.js';
import { freePort } from '../helpers/free-port.js';
import type { Json } from '../helpers/json.js';

const UID = 10001; // the image's greenline user
const IMAGE = 'localhost/greenline:deploy-test';
const REPO = { host: 'github.com', owner: 'acme', name: 'web' };
const REMOTE_IN_CONTAINER = '/srv/git/web.git';
const TERMINAL = ['MERGED', 'FAILED', 'CANCELLED'];

// The remotes belong to the image's user, who pushes to them; git here reads them as root.
process.env.GIT_CONFIG_COUNT = '1';
process.env.GIT_CONFIG_KEY_0 = 'safe.directory';
process.env.GIT_CONFIG_VALUE_0 = '*';

const unavailable = ensurePodman();
if (unavailable && process.env.CI === 'true')
  throw new Error(`the container test needs podman when CI=true: ${unavailable}`);
if (unavailable) console.warn(`NOTICE: container test skipped: ${unavailable}`);

const suffix = randomBytes(4).toString('hex');
let podman: Podman;
let tmp: string;
const containers: string[] = [];
const volumes: string[] = [];
let postgres: TestDatabase | undefined;
let imageSize = 0;

/** Polls `probe` until it answers something other than undefined; a probe that throws (a server still starting) is asked again. */
async function waitUntil<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  let lastError: unknown;
  return vi
    .waitFor(
      async () => {
        let value: T | undefined;
        try {
          value = await probe();
        } catch (err) {
          lastError = err;
          throw err;
        }
        if (value === undefined) throw new Error(`not yet ${what}`);
        return value;
      },
      { timeout: timeoutMs, interval: 250 },
    )
    .catch(() => {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${what}${lastError ? `: ${String(lastError)}` : ''}`,
      );
    });
}

/** A bare remote whose check.sh passes, PRs 1 and 2 adding a file each, and PR 3 whose check takes minutes. */
async function makeRemote(name: string): Promise<GitRemote> {
  const root = path.join(tmp, name);
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root);
  const remote = await GitRemote.create(root, { 'check.sh': 'exit 0\n', README: 'web\n' });
  await remote.openPr(1, { 'one.txt': 'one\n' }, 'Add one');
  await remote.openPr(2, { 'two.txt': 'two\n' }, 'Add two');
  await remote.openPr(3, { 'check.sh': 'sleep 300\n' }, 'Slow check');
  // The container's user pushes to it.
  execFileSync('chown', ['-R', `${UID}:${UID}`, remote.dir]);
  return remote;
}

interface Started {
  name: string;
  url: string;
}

/** `podman run -d` of the image on the host network, with a fresh (or given) data volume. */
async function runContainer(
  label: string,
  env: Record<string, string>,
  volume: string,
  remote: GitRemote,
): Promise<Started> {
  const port = await freePort();
  const name = `greenline-test-${label}-${suffix}`;
  containers.push(name);
  const envArgs = Object.entries({ ...env, GREENLINE_PORT: String(port) }).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  // --read-only: as the Kubernetes manifests run it (readOnlyRootFilesystem; podman mounts a tmpfs on /tmp).
  await podman.ok([
    'run',
    '-d',
    '--name',
    name,
    '--network',
    'host',
    '--read-only',
    '--health-interval',
    'disable',
    ...envArgs,
    '-v',
    `${volume}:/var/lib/greenline`,
    '-v',
    `${remote.dir}:${REMOTE_IN_CONTAINER}`,
    IMAGE,
  ]);
  // The image's own HEALTHCHECK decides when it is up.
  await waitUntil(`${name} to be healthy`, 60_000, async () =>
    (await podman.run(['healthcheck', 'run', name])).code === 0 ? true : undefined,
  );
  return { name, url: `http://127.0.0.1:${port}` };
}

async function newVolume(label: string): Promise<string> {
  const name = `greenline-test-${label}-${suffix}`;
  volumes.push(name);
  await podman.ok(['volume', 'create', name]);
  return name;
}

async function api(server: Started, token: string, endpoint: string, body: Record<string, unknown>): Promise<Json> {
  const res = await fetch(`${server.url}/v1/${endpoint}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-token': token },
    body: JSON.stringify({ repo: REPO, targetBranch: 'main', ...body }),
  });
  const json = await res.json();
  if (res.status !== 200) throw new Error(`${endpoint} answered ${res.status}: ${JSON.stringify(json)}`);
  return json;
}

async function prState(server: Started, token: string, n: number): Promise<string> {
  return (await api(server, token, 'getSubmittedPullRequest', { pr: { number: n } })).state as string;
}

function waitForState(
  server: Started,
  token: string,
  n: number,
  states: string[],
  timeoutMs = 120_000,
): Promise<string> {
  return waitUntil(`PR ${n} to be ${states.join(' or ')}`, timeoutMs, async () => {
    const state = await prState(server, token, n);
    return states.includes(state) ? state : undefined;
  });
}

/** docs/deploy.md: the token is the last line of `greenline token create`. */
async function createToken(container: string): Promise<string> {
  const out = await podman.ok(['exec', container, 'greenline', 'token', 'create', '--org', 'default', '--name', 'ci']);
  return out.split('\n').at(-1)!;
}

async function connectRepo(container: string): Promise<void> {
  await podman.ok([
    'exec',
    container,
    'greenline',
    'repo',
    'connect',
    'github.com/acme/web',
    '--org',
    'default',
    '--forge',
    'git',
    '--remote',
    REMOTE_IN_CONTAINER,
    '--ci-command',
    'sh check.sh',
  ]);
}

/** `podman stop` (SIGTERM, then SIGKILL after 10 s): how long it took, and the exit code. */
async function stopTimed(container: string): Promise<{ ms: number; exitCode: number }> {
  const start = performance.now();
  await podman.ok(['stop', '--time', '10', container], 60_000);
  const ms = performance.now() - start;
  const exitCode = Number(await podman.ok(['inspect', '--format', '{{.State.ExitCode}}', container]));
  return { ms, exitCode };
}

describe.skipIf(unavailable !== null)('container image', () => {
  beforeAll(async () => {
    podman = new Podman();
    tmp = mkdtempSync(path.join(tmpdir(), 'greenline-container-'));
    const started = performance.now();
    const base = await podman.localBase();
    const baseDone = performance.now();
    // docs/deploy.md, "Building on a machine without registry access".
    await podman.ok(
      [
        'build',
        '--format',
        'docker',
        '--jobs',
        '2',
        '--network',
        'host',
        '--build-arg',
        `BASE_IMAGE=${base}`,
        '--build-arg',
        `NODE_EXTRA_CA_CERTS=${CA_BUNDLE}`,
        '-t',
        IMAGE,
        '-f',
        'Containerfile',
        '.',
      ],
      900_000,
    );
    imageSize = Number(await podman.ok(['image', 'inspect', '--format', '{{.Size}}', IMAGE]));
    console.log(
      `container image: base ${Math.round(baseDone - started)} ms, build ${Math.round(performance.now() - baseDone)} ms, ` +
        `size ${(imageSize / 1e6).toFixed(0)} MB`,
    );
  }, 1_200_000);

  afterAll(async () => {
    for (const name of containers) await podman.run(['rm', '--force', '--time', '0', name]);
    for (const name of volumes) await podman.run(['volume', 'rm', '--force', name]);
    await postgres?.cleanup();
    podman.dispose();
    rmSync(tmp, { recursive: true, force: true });
  }, 120_000);

  it('runs as a non-root user, serves greenline on 8080 with data under a volume and a health check', async () => {
    const [inspect] = JSON.parse(await podman.ok(['image', 'inspect', IMAGE]));
    const config = inspect.Config;
    const healthcheck = inspect.Healthcheck ?? config.Healthcheck;
    expect(config.User).toBe('greenline');
    expect(config.Entrypoint).toEqual(['/usr/bin/tini', '--', 'greenline', 'serve']);
    expect(Object.keys(config.Volumes)).toEqual(['/var/lib/greenline']);
    expect(config.Env).toEqual(
      expect.arrayContaining([
        'GREENLINE_HOST=0.0.0.0',
        'GREENLINE_PORT=8080',
        'GREENLINE_DATA_DIR=/var/lib/greenline',
      ]),
    );
    expect(healthcheck.Test.join(' ')).toContain('greenline health');
    const id = await podman.ok(['run', '--rm', '--network', 'none', '--entrypoint', 'id', IMAGE, '-u']);
    expect(id).toBe(String(UID));
    expect(await podman.ok(['run', '--rm', '--network', 'none', '--entrypoint', 'git', IMAGE, '--version'])).toMatch(
      /^git version /,
    );
    // Flattened: the base's npm and Node headers are not carried (375 MB seen on the local base).
    expect(imageSize).toBeLessThan(450e6);
  });

  it('merges PRs on a mounted remote with the built-in CI, keeps its state in the volume, and stops on SIGTERM within 10 s', async () => {
    const remote = await makeRemote('sqlite');
    const volume = await newVolume('sqlite');
    const first = await runContainer('sqlite-1', {}, volume, remote);
    expect(await podman.ok(['logs', first.name])).toContain('greenline bootstrap API token');
    const token = await createToken(first.name);
    await connectRepo(first.name);
    await api(first, token, 'createQueue', { concurrency: 2 });
    for (const n of [1, 2]) await api(first, token, 'submitPullRequest', { pr: { number: n } });
    for (const n of [1, 2]) expect(await waitForState(first, token, n, TERMINAL)).toBe('MERGED');
    expect(await remote.readFile('main', 'one.txt')).toBe('one');
    expect(await remote.readFile('main', 'two.txt')).toBe('two');
    const merged = await remote.sha('main');

    // docs/deploy.md's online backup, run as written there (with this container's name).
    const backupBlock = /^## Backup\n[\s\S]*?```sh\n([\s\S]*?)```/m.exec(
      readFileSync(path.join(ROOT, 'docs/deploy.md'), 'utf8'),
    )![1]!;
    const backupDir = path.join(tmp, 'backup');
    mkdirSync(backupDir);
    const script = backupBlock
      .replace(/\\\n\s*/g, '')
      .replaceAll('exec greenline ', `exec ${first.name} `)
      .replaceAll('cp greenline:', `cp ${first.name}:`);
    expect(
      execFileSync('sh', ['-ec', script.replace(/^ {2}/gm, '')], { cwd: backupDir, env: podman.env, encoding: 'utf8' }),
    ).toContain('backup done');
    const [copy] = readdirSync(backupDir);
    const backup = new Database(path.join(backupDir, copy!), { readonly: true });
    try {
      expect(backup.pragma('integrity_check', { simple: true })).toBe('ok');
      expect(backup.prepare('SELECT count(*) AS n FROM entries').get()).toEqual({ n: 2 });
    } finally {
      backup.close();
    }

    // A new container on the same volume: same organization, token, queue and PR history.
    const idle = await stopTimed(first.name);
    expect(idle.exitCode).toBe(0);
    await podman.ok(['rm', first.name]);
    const second = await runContainer('sqlite-2', {}, volume, remote);
    expect(await podman.ok(['logs', second.name])).not.toContain('greenline bootstrap API token');
    expect(await prState(second, token, 1)).toBe('MERGED');
    expect(await prState(second, token, 2)).toBe('MERGED');

    // SIGTERM while the built-in CI runs a command that would take minutes.
    await api(second, token, 'submitPullRequest', { pr: { number: 3 } });
    await waitForState(second, token, 3, ['TESTING']);
    await waitUntil('the CI command of PR 3 to run', 60_000, async () =>
      (await podman.run(['exec', second.name, 'sh', '-c', "cat /proc/[0-9]*/cmdline | tr '\\0' ' '"])).stdout.includes(
        'sleep 300',
      )
        ? true
        : undefined,
    );
    const busy = await stopTimed(second.name);
    console.log(`SIGTERM to exit: idle ${Math.round(idle.ms)} ms, with a CI command running ${Math.round(busy.ms)} ms`);
    expect(busy.exitCode).toBe(0);
    expect(busy.ms).toBeLessThan(10_000);
    expect(await remote.sha('main')).toBe(merged);
  }, 600_000);

  it('two containers on PostgreSQL: the queue is taken over when the one driving it is killed', async () => {
    postgres = (await testDatabases()).find((d) => d.name === 'postgres');
    if (!postgres) throw new Error('PostgreSQL at 127.0.0.1:5432 is needed for the several-instances container test');
    const url = await postgres.url();
    const remote = await makeRemote('postgres');
    const env = { GREENLINE_DATABASE_URL: url, GREENLINE_LEASE_TTL_SECONDS: '6' };
    // The first instance drives the queue alone; the second starts once it does.
    const a = await runContainer('pg-a', env, await newVolume('pg-a'), remote);
    const token = await createToken(a.name);
    await connectRepo(a.name);
    await api(a, token, 'createQueue', {});
    await api(a, token, 'submitPullRequest', { pr: { number: 1 } });
    expect(await waitForState(a, token, 1, TERMINAL)).toBe('MERGED');
    const b = await runContainer('pg-b', env, await newVolume('pg-b'), remote);

    const holder = async (): Promise<string | undefined> => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query<{ holder: string }>('SELECT holder FROM queue_leases')).rows[0]?.holder;
      } finally {
        await client.end();
      }
    };
    const before = await waitUntil('a queue lease', 30_000, holder);
    // Kill the instance driving the queue without warning.
    const killedAt = performance.now();
    await podman.ok(['kill', '--signal', 'KILL', a.name]);
    await api(b, token, 'submitPullRequest', { pr: { number: 2 } });
    const after = await waitUntil('another instance to hold the lease', 60_000, async () => {
      const h = await holder();
      return h !== undefined && h !== before ? h : undefined;
    });
    const takenOver = performance.now() - killedAt;
    expect(after).not.toBe(before);
    expect(await waitForState(b, token, 2, TERMINAL)).toBe('MERGED');
    console.log(
      `takeover: lease taken ${Math.round(takenOver)} ms after SIGKILL, PR 2 merged ${Math.round(performance.now() - killedAt)} ms after`,
    );
    expect(await remote.readFile('main', 'two.txt')).toBe('two');
    await stopTimed(b.name);
  }, 600_000);
});
