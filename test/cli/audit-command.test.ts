/**
 * `greenline audit` in process, on a SQLite store in a temporary data directory: the CLI's own admin
 * changes appear under the OS user, filters and paging work as the API's, a bad filter names its flag.
 */
import { userInfo } from 'node:os';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { makeTempDir, removeTempDir } from '../helpers/temp-dir.js';

let dir: string;
beforeAll(async () => {
  dir = await makeTempDir('greenline-audit-');
});
afterAll(() => removeTempDir(dir));
afterEach(() => vi.restoreAllMocks());

/** Runs `greenline <args> --data-dir <dir>` in process; its stdout. */
async function run(...args: string[]): Promise<string> {
  let out = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
  try {
    await buildProgram().parseAsync(['node', 'greenline', ...args, '--data-dir', dir]);
  } finally {
    vi.restoreAllMocks();
  }
  return out;
}

describe('greenline audit', () => {
  it("lists the CLI's changes under the OS user, newest first, filtered and paged", async () => {
    const created = await run('token', 'create', '--org', 'acme', '--create-org', '--name', 'ci');
    const id = /Created token (\S+)/.exec(created)![1]!;
    await run('token', 'revoke', id);
    const user = userInfo().username;

    const page = JSON.parse(await run('audit', '--org', 'acme', '--json'));
    expect(page.events.map((e: { action: string }) => e.action)).toEqual([
      'token.revoke',
      'token.create',
      'org.create',
    ]);
    expect(page.events[0]).toMatchObject({
      actor: { kind: 'cli', id: user, name: user },
      target: { token: id, name: 'ci' },
      source: null,
    });
    expect(page.nextCursor).toBeUndefined();

    const first = JSON.parse(await run('audit', '--org', 'acme', '--json', '--take', '2'));
    expect(first.events).toHaveLength(2);
    const rest = JSON.parse(await run('audit', '--org', 'acme', '--json', '--take', '2', '--cursor', first.nextCursor));
    expect(rest.events.map((e: { action: string }) => e.action)).toEqual(['org.create']);

    const lines = await run('audit', '--org', 'acme', '--action', 'token.create');
    expect(lines).toMatch(new RegExp(`^\\S+Z  cli:${user}  token\\.create  token=${id} name=ci\\n$`));
    expect(await run('audit', '--org', 'acme', '--actor', 'nobody')).toBe('No audit log entries match.\n');
  });

  it('names the flag of a bad filter', async () => {
    await run('token', 'create', '--org', 'acme', '--create-org', '--name', 'x');
    await expect(run('audit', '--org', 'acme', '--from', 'yesterday')).rejects.toThrow(
      /^--from must be an ISO-8601 date-time/,
    );
    await expect(run('audit', '--org', 'acme', '--take', '500')).rejects.toThrow(
      /^--take must be an integer from 1 to 100/,
    );
    await expect(run('audit', '--org', 'acme', '--action', 'queue.explode')).rejects.toThrow(
      /^--action "queue.explode"/,
    );
  });
});
