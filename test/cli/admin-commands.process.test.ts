/**
 * `greenline token …` and `greenline repo …` as real processes on a real SQLite data dir, and the
 * admin commands and `serve` on a PostgreSQL server that cannot be reached.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateToken } from '../../src/app/admin/tokens.js';
import { connect } from '../../src/store/connect.js';
import { runCli } from './run-cli.js';
import { makeTempDirSync, removeTempDir } from '../helpers/temp-dir.js';

let dir: string;
beforeAll(() => {
  dir = makeTempDirSync('greenline-cli-');
});
afterAll(() => removeTempDir(dir));

const lastLine = (s: string): string => s.trimEnd().split('\n').at(-1)!;

async function authenticates(token: string): Promise<string | null> {
  const db = connect({ databaseUrl: null, dataDir: dir });
  try {
    return (await authenticateToken(db, token))?.orgName ?? null;
  } finally {
    await db.destroy();
  }
}

describe('greenline token', () => {
  it('create prints the new token alone on the last line; it authenticates for its org', async () => {
    const r = await runCli(['token', 'create', '--org', 'acme', '--create-org', '--name', 'ci', '--data-dir', dir]);
    expect(r.code).toBe(0);
    const token = lastLine(r.stdout);
    expect(token).toMatch(/^gl_[A-Za-z0-9_-]{43}$/);
    expect(await authenticates(token)).toBe('acme');
  });

  it('list shows tokens without secrets; revoke stops a token from authenticating', async () => {
    const created = await runCli(['token', 'create', '--org', 'beta', '--create-org', '--data-dir', dir]);
    const token = lastLine(created.stdout);
    const id = /Created token (\S+)/.exec(created.stdout)![1]!;
    const list = await runCli(['token', 'list', '--org', 'beta', '--data-dir', dir]);
    expect(list.stdout).toContain(id);
    expect(list.stdout).toContain('active');
    expect(list.stdout).not.toContain(token);

    const revoked = await runCli(['token', 'revoke', id, '--data-dir', dir]);
    expect(revoked.code).toBe(0);
    expect(await authenticates(token)).toBeNull();
    const again = await runCli(['token', 'revoke', id, '--data-dir', dir]);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/No active token has id/);
  });

  it('create for an unknown organization fails, lists the existing ones and names --create-org; it creates nothing', async () => {
    const empty = join(dir, 'empty');
    const none = await runCli(['token', 'create', '--org', 'acme', '--data-dir', empty]);
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(
      `Using the data directory ${empty} (database ${empty}/greenline.db).\n` +
        `warning: created a new empty data directory ${empty}: is this the directory the server uses? pass --data-dir\n` +
        'error: Organization acme does not exist (there is no organization yet); ' +
        'pass --create-org to create it (greenline token create --org acme --create-org)\n',
    );

    await runCli(['token', 'create', '--org', 'acme', '--create-org', '--data-dir', empty]);
    await runCli(['token', 'create', '--org', 'zeta', '--create-org', '--data-dir', empty]);
    const typo = await runCli(['token', 'create', '--org', 'acmee', '--data-dir', empty]);
    expect(typo.code).toBe(1);
    expect(typo.stderr).toBe(
      `Using the data directory ${empty} (database ${empty}/greenline.db).\n` +
        'error: Organization acmee does not exist (existing organizations: acme, zeta); ' +
        'pass --create-org to create it (greenline token create --org acmee --create-org)\n',
    );
    const list = await runCli(['token', 'list', '--data-dir', empty]);
    expect(list.stdout).not.toContain('acmee');
    expect(list.stdout.trimEnd().split('\n')).toHaveLength(2);
  });

  it('says which data directory it used, and warns when it just created it empty, run from another directory', async () => {
    const elsewhere = join(dir, 'elsewhere');
    mkdirSync(elsewhere);
    const first = await runCli(['token', 'list'], {}, elsewhere);
    expect(first.code).toBe(0);
    expect(first.stderr).toBe(
      'Using the data directory ./.greenline (database ./.greenline/greenline.db).\n' +
        'warning: created a new empty data directory ./.greenline: is this the directory the server uses? pass --data-dir\n',
    );
    expect(existsSync(join(elsewhere, '.greenline', 'greenline.db'))).toBe(true);
    const again = await runCli(['token', 'list'], {}, elsewhere);
    expect(again.stderr).toBe('Using the data directory ./.greenline (database ./.greenline/greenline.db).\n');
    const file = join(dir, 'loose.db');
    const url = await runCli(['token', 'list', '--database-url', `sqlite:${file}`], {}, elsewhere);
    expect(url.stderr).toBe(
      `Using the database ${file}.\nwarning: created a new empty database ${file}: is this the database the server uses? pass --database-url\n`,
    );
  });

  it('create without --org fails with a message', async () => {
    const r = await runCli(['token', 'create', '--data-dir', dir]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/--org/);
  });
});

describe('greenline repo', () => {
  /** `greenline repo connect SLUG --org acme FLAGS… --data-dir <dir>`, run in `cwd`. */
  const connectRepo = (slug: string, flags: string[], cwd?: string) =>
    runCli(['repo', 'connect', slug, '--org', 'acme', ...flags, '--data-dir', dir], {}, cwd);
  const listRepos = async (): Promise<string> => (await runCli(['repo', 'list', '--data-dir', dir])).stdout;

  it('connect, list, disconnect', async () => {
    const remote = join(dir, 'web.git');
    execFileSync('git', ['init', '-q', '--bare', remote]);
    const c = await connectRepo('github.com/acme/web', [
      '--forge',
      'git',
      '--remote',
      remote,
      '--ci-command',
      'npm test',
    ]);
    expect(c.code).toBe(0);
    expect(c.stdout).toContain('Connected github.com/acme/web');

    expect(await listRepos()).toMatch(
      new RegExp(
        `github\\.com/acme/web\\s+org acme\\s+forge git\\s+remote ${remote.replace(/[.]/g, '\\.')}\\s+ci: npm test`,
      ),
    );

    const dup = await connectRepo('github.com/acme/web', ['--forge', 'git', '--remote', '/x', '--no-remote-check']);
    expect(dup.code).toBe(1);
    expect(dup.stderr).toMatch(/already connected/);

    const d = await runCli(['repo', 'disconnect', 'github.com/acme/web', '--data-dir', dir]);
    expect(d.code).toBe(0);
    expect(await listRepos()).toContain('No repositories connected.');
    const d2 = await runCli(['repo', 'disconnect', 'github.com/acme/web', '--data-dir', dir]);
    expect(d2.stderr).toMatch(/is not connected/);
  });

  it('refuses a remote git cannot reach, naming it and the way around (exit 2); --no-remote-check connects it anyway', async () => {
    const missing = join(dir, 'no-such-remote.git');
    const r = await connectRepo('example.com/acme/gone', ['--forge', 'git', '--remote', missing]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`Cannot reach the remote ${missing}`);
    expect(r.stderr).toMatch(/--no-remote-check/);
    expect(await listRepos()).not.toContain('example.com/acme/gone');
    const forced = await connectRepo('example.com/acme/gone', [
      '--forge',
      'git',
      '--remote',
      missing,
      '--no-remote-check',
    ]);
    expect(forced.code).toBe(0);
  });

  it('stores a relative --remote resolved against the directory it ran in, and prints what it stored', async () => {
    const work = join(dir, 'relative', 'work');
    mkdirSync(work, { recursive: true });
    execFileSync('git', ['init', '-q', '--bare', join(dir, 'relative', 'shop.git')]);
    const stored = join(dir, 'relative', 'shop.git');
    const c = await connectRepo('example.com/acme/shop', ['--forge', 'git', '--remote', '../shop.git'], work);
    expect(c.code).toBe(0);
    expect(c.stdout).toContain(
      `Connected example.com/acme/shop to organization acme (forge git, remote ${stored}, resolved from ../shop.git)`,
    );
    expect(await listRepos()).toMatch(
      new RegExp(`example\\.com/acme/shop\\s+org acme\\s+forge git\\s+remote ${stored.replace(/[.]/g, '\\.')}\\s`),
    );
  });

  it('refuses a relative --remote that is no directory or no git repository, saying where it looked (exit 2)', async () => {
    const work = join(dir, 'refused');
    mkdirSync(join(work, 'plain'), { recursive: true });
    const missing = await connectRepo(
      'example.com/acme/missing',
      ['--forge', 'git', '--remote', '../nowhere.git'],
      work,
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(
      `Cannot reach the remote ${join(dir, 'nowhere.git')} (--remote ../nowhere.git resolved against ${work}): no such directory`,
    );
    expect(missing.stderr).toMatch(/path of a git repository/);
    const plain = await connectRepo('example.com/acme/plain', ['--forge', 'git', '--remote', 'plain'], work);
    expect(plain.code).toBe(2);
    expect(plain.stderr).toContain(
      `Cannot reach the remote ${join(work, 'plain')} (--remote plain resolved against ${work})`,
    );
    expect(plain.stderr).toMatch(/not a git repository|does not appear to be a git repository/);
    const listed = await listRepos();
    expect(listed).not.toContain('example.com/acme/missing');
    expect(listed).not.toContain('example.com/acme/plain');
  });

  it('connects a repository with --forge github and an installation id; refuses a bad id and --remote (exit 2)', async () => {
    const bad = await connectRepo('github.com/acme/api', ['--forge', 'github', '--installation-id', 'x1']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--installation-id must be a positive integer/);
    const remote = await connectRepo('github.com/acme/api', ['--forge', 'github', '--remote', '/x']);
    expect(remote.code).toBe(2);
    expect(remote.stderr).toMatch(/--remote is for --forge git/);
    const r = await connectRepo('github.com/acme/api', ['--forge', 'github', '--installation-id', '4242']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Connected github.com/acme/api to organization acme (forge github, installation 4242)');
    expect(await listRepos()).toMatch(/github\.com\/acme\/api\s+org acme\s+forge github/);
  });

  it('requires --remote for --forge git, and a HOST/OWNER/NAME repository', async () => {
    const noRemote = await connectRepo('github.com/acme/api', ['--forge', 'git']);
    expect(noRemote.code).toBe(2);
    expect(noRemote.stderr).toMatch(/--remote/);
    const bad = await connectRepo('acme/api', ['--forge', 'git', '--remote', '/x', '--no-remote-check']);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/HOST\/OWNER\/NAME/);
  });

  it.concurrent.each([
    'repo connect',
    'repo list',
    'repo disconnect',
    'token create',
    'token list',
    'token revoke',
    'serve',
  ])('%s --help shows usage with an example', async (command) => {
    const r = await runCli([...command.split(' '), '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Usage: greenline/);
    expect(r.stdout).toMatch(/Examples?:\n\s+\$ greenline/);
  });

  it('an unknown GREENLINE_ variable is a usage error naming it', async () => {
    const r = await runCli(['repo', 'list', '--data-dir', dir], { GREENLINE_DATADIR: '/x' });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/GREENLINE_DATADIR/);
  });
});

describe('a PostgreSQL server that cannot be reached', () => {
  it('serve and the admin commands say they could not connect, to which URL (no password), why, and what to check', async () => {
    const server = createNetServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const url = `postgres://greenline:s3cret@127.0.0.1:${port}/greenline`;
    const expected =
      `error: Could not connect to the database at postgres://greenline:***@127.0.0.1:${port}/greenline: ` +
      `connect ECONNREFUSED 127.0.0.1:${port}. Check that PostgreSQL is running and listens on that host and port, ` +
      'and that the URL is right (the URL comes from --database-url, GREENLINE_DATABASE_URL or databaseUrl in greenline.yaml).\n';
    const [serve, tokens, fromEnv] = await Promise.all([
      // Without its start-up wait: serve would keep trying a server that refuses for a minute.
      runCli([
        'serve',
        '--port',
        '0',
        '--data-dir',
        join(dir, 'pg-down'),
        '--database-url',
        url,
        '--database-startup-wait',
        '0',
      ]),
      runCli(['token', 'list', '--database-url', url]),
      runCli(['repo', 'list'], { GREENLINE_DATABASE_URL: url }),
    ]);
    for (const r of [serve, tokens, fromEnv]) expect(r).toMatchObject({ code: 1, stderr: expected });
  });
});
