/**
 * `greenline queue freeze | unfreeze` against a real server process that tests and merges with the git
 * forge and the built-in CI: a frozen queue tests a PR but does not merge it, and merges it once the
 * freeze ends (the queue wakes at the edge by itself); unfreeze ends a one-off freeze early; bad
 * input is refused with a message naming the option.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliServer, type CliServer } from './cli-server.js';

const MAIN = ['--repo', 'github.com/acme/web', '--branch', 'main'];
const RELEASE = ['--repo', 'github.com/acme/web', '--branch', 'release'];

let s: CliServer;
beforeAll(async () => {
  s = await startCliServer({
    async beforeServe(git) {
      await git.setRef('refs/heads/release', git.baseSha);
      await git.openPr(1, { 'one.txt': 'one\n' }, { title: 'Add one' });
    },
  });
  expect((await s.run(['queue', 'create', ...MAIN])).code).toBe(0);
  expect((await s.run(['queue', 'create', ...RELEASE])).code).toBe(0);
}, 60_000);
afterAll(() => s?.stop());

const queueJson = async (address: string[]) => JSON.parse((await s.run(['queue', 'get', ...address, '--json'])).stdout);
const prState = async (n: number): Promise<string> =>
  JSON.parse((await s.run(['pr', 'status', String(n), ...MAIN, '--json'])).stdout).state;

describe('greenline queue freeze', () => {
  it('holds a tested PR back until the freeze ends, then merges it without being told', async () => {
    const end = new Date(Date.now() + 12_000).toISOString();
    const frozen = await s.run(['queue', 'freeze', ...MAIN, '--until', end, '--reason', 'release 2.4']);
    expect(frozen.code, frozen.stderr).toBe(0);
    expect(frozen.stdout).toBe(`Queue github.com/acme/web main is frozen until ${end}: release 2.4.\n`);
    expect(await queueJson(MAIN)).toMatchObject({
      state: 'RUNNING',
      frozen: true,
      frozenUntil: end,
      frozenReason: 'release 2.4',
    });
    const shown = (await s.run(['queue', 'get', ...MAIN])).stdout;
    expect(shown).toMatch(/^frozen:\s+true$/m);
    expect(shown).toMatch(/^frozenReason:\s+release 2\.4$/m);
    expect(shown).toMatch(/^freezes:\s+\{"windows":\[\],"oneOff":\[\{"from":/m);

    expect((await s.run(['pr', 'submit', '1', ...MAIN])).code).toBe(0);
    await expect.poll(() => prState(1), { timeout: 40_000, interval: 250 }).toBe('TESTS_PASSED');
    const base = await s.git.refSha('refs/heads/main');
    expect(await s.git.readFile('refs/heads/main', 'one.txt')).toBeNull();
    // Still frozen: the PR waits, and main has not moved.
    if (Date.now() < Date.parse(end) - 1_000) {
      expect(await prState(1)).toBe('TESTS_PASSED');
      expect(await s.git.refSha('refs/heads/main')).toBe(base);
    }

    await expect.poll(() => prState(1), { timeout: 40_000, interval: 250 }).toBe('MERGED');
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(end));
    expect(await s.git.readFile('refs/heads/main', 'one.txt')).toBe('one\n');
    expect(await queueJson(MAIN)).toMatchObject({ frozen: false, frozenUntil: null, frozenReason: null });
  }, 90_000);

  it('unfreeze ends the one-off freeze in effect; a second unfreeze says there is none', async () => {
    const end = new Date(Date.now() + 3_600_000).toISOString();
    expect((await s.run(['queue', 'freeze', ...RELEASE, '--until', end, '--reason', 'audit'])).code).toBe(0);
    expect(await queueJson(RELEASE)).toMatchObject({ frozen: true, frozenReason: 'audit' });
    const r = await s.run(['queue', 'unfreeze', ...RELEASE]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe('Ended "audit" on queue github.com/acme/web release: it is not frozen.\n');
    expect(await queueJson(RELEASE)).toMatchObject({ frozen: false, freezes: { oneOff: [] } });
    const again = await s.run(['queue', 'unfreeze', ...RELEASE]);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/No one-off freeze is in effect on queue github.com\/acme\/web release/);
  });

  it.each([
    [
      ['--until', 'tomorrow', '--reason', 'x'],
      /--until must be an ISO-8601 time such as 2026-03-30T06:00:00Z, got "tomorrow"/,
    ],
    [['--until', '2020-01-01T00:00:00Z', '--reason', 'x'], /--until 2020-01-01T00:00:00Z is not in the future/],
    [['--reason', 'x'], /required option '--until <time>' not specified/],
  ])('%j is refused naming the option', async (args, message) => {
    const r = await s.run(['queue', 'freeze', ...RELEASE, ...args]);
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(message);
    expect((await queueJson(RELEASE)).frozen ?? false).toBe(false);
  });

  it('--help explains freeze and unfreeze', async () => {
    const help = await s.cli(['queue', 'freeze', '--help']);
    expect(help.stdout).toMatch(/--until <time>\s+when the freeze ends/);
    expect(help.stdout).toMatch(/--reason <text>/);
    expect((await s.cli(['queue', 'unfreeze', '--help'])).stdout).toMatch(/end the one-off freezes in effect now/);
  });
});
