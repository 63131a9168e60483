/**
 * Signed commits on the git forge, with a real SSH key made by ssh-keygen and real git: with a
 * signing key every commit greenline writes and lands (test commits fast-forwarded to under
 * merge_commit, squash commits, replayed rebase commits) carries a signature git verifies against
 * the key, the same inputs still give the same commit, and the PRs' own commits are left as their
 * authors made them; a key git cannot sign with is refused before any commit, saying what to change.
 */
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunPr } from '../../../src/engine/types.js';
import { createGitForge, type GitForge } from '../../../src/forge/git/index.js';
import { ConfigError, loadConfig } from '../../../src/config/config.js';
import { runGit } from '../../../src/git/git.js';
import { createServer } from '../../../src/server/server.js';
import { checkSigningKey, type SigningKey } from '../../../src/git/signing.js';
import { appWithLine, type GitFixture, makeGitFixture } from '../../helpers/git-fixture.js';

const logger = pino({ level: 'silent' });
let fx: GitFixture;
let key: SigningKey;
let allowedSigners: string;
let h1: string;
let h2: string;

beforeEach(async () => {
  fx = await makeGitFixture();
  const file = path.join(fx.root, 'signing-key');
  await promisify(execFile)('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'greenline', '-f', file]);
  key = { format: 'ssh', key: file };
  // git verifies SSH signatures against the allowed signers: the committer's email and the public key.
  const pub = (await promisify(execFile)('cat', [`${file}.pub`])).stdout.trim();
  allowedSigners = path.join(fx.root, 'allowed-signers');
  await writeFile(allowedSigners, `greenline@localhost ${pub}\n`);
  h1 = await fx.openPr(1, { 'src/app.txt': appWithLine(1, 'one') }, { title: 'Change line one', author: 'Ada' });
  h2 = await fx.openPr(2, { 'src/app.txt': appWithLine(9, 'nine') }, { title: 'Change line nine', author: 'Bob' });
});
afterEach(() => fx.cleanup());

const prs = (): RunPr[] => [
  { number: 1, headSha: h1 },
  { number: 2, headSha: h2 },
];

/** Builds the test commit of PRs 1 and 2 on the base and advances main to it with `method`. */
async function land(forge: GitForge, method: 'merge_commit' | 'squash' | 'rebase'): Promise<string> {
  const built = await forge.createTestBranch(fx.binding(), { branch: `gm/${method}`, baseSha: fx.baseSha, prs: prs() });
  if (!built.ok) throw new Error(built.detail);
  const res = await forge.advanceTarget(fx.binding(), {
    targetBranch: 'main',
    expectedSha: fx.baseSha,
    testSha: built.sha,
    prs: prs(),
    method,
  });
  if (!res.ok) throw new Error(res.detail);
  return res.newSha;
}

/** Each commit on main since the base: `<sha> <signature status> <subject>` (G good, N none). */
async function signatures(): Promise<string[]> {
  const out = await runGit(
    ['-c', `gpg.ssh.allowedSignersFile=${allowedSigners}`, 'log', '--format=%H %G? %s', `${fx.baseSha}..main`],
    { cwd: fx.remote },
  );
  return out.stdout.trim().split('\n');
}

describe('git forge: signed commits', () => {
  it('squash: every commit landed is signed with the key and verifies', async () => {
    await land(createGitForge({ dataDir: fx.dataDir, logger, signingKey: key }), 'squash');
    const lines = await signatures();
    expect(lines.map((l) => l.split(' ').slice(1).join(' '))).toEqual([
      'G Change line nine (#2)',
      'G Change line one (#1)',
    ]);
    const sha = lines[0]!.split(' ')[0]!;
    const verified = await runGit(['-c', `gpg.ssh.allowedSignersFile=${allowedSigners}`, 'verify-commit', sha], {
      cwd: fx.remote,
    });
    expect(verified.stderr).toContain('Good "git" signature for greenline@localhost');
  });

  it("merge_commit: the tested merge commits are signed; the PRs' own commits stay as their authors made them", async () => {
    await land(createGitForge({ dataDir: fx.dataDir, logger, signingKey: key }), 'merge_commit');
    expect((await signatures()).map((l) => l.split(' ').slice(1).join(' '))).toEqual([
      'G Merge pull request #2: Change line nine',
      'N Change line nine',
      'G Merge pull request #1: Change line one',
      'N Change line one',
    ]);
  });

  it('rebase: the replayed commits are signed', async () => {
    await land(createGitForge({ dataDir: fx.dataDir, logger, signingKey: key }), 'rebase');
    const lines = await signatures();
    expect(lines).toHaveLength(2);
    expect(lines.every((l) => l.split(' ')[1] === 'G')).toBe(true);
  });

  it('the same inputs give the same signed commit (a retried merge recomputes what it pushed)', async () => {
    const a = createGitForge({ dataDir: fx.dataDir, logger, signingKey: key });
    const b = createGitForge({ dataDir: path.join(fx.root, 'other-data'), logger, signingKey: key });
    const one = await a.createTestBranch(fx.binding(), { branch: 'gm/a', baseSha: fx.baseSha, prs: prs() });
    const two = await b.createTestBranch(fx.binding(), { branch: 'gm/b', baseSha: fx.baseSha, prs: prs() });
    expect(one.ok && two.ok && one.sha === two.sha).toBe(true);
  });

  it('without a key, commits are not signed', async () => {
    await land(createGitForge({ dataDir: fx.dataDir, logger }), 'squash');
    expect((await signatures()).map((l) => l.split(' ')[1])).toEqual(['N', 'N']);
  });
});

describe('checkSigningKey', () => {
  it('accepts a key git signs with, and refuses one it cannot use or a relative path, saying what to change', async () => {
    expect(await checkSigningKey(key)).toBeNull();
    expect(await checkSigningKey({ format: 'ssh', key: path.join(fx.root, 'no-such-key') })).toMatch(
      /^git cannot sign commits with gitSigningKey ".*no-such-key" \(gitSigningFormat ssh\): .*; give the path of a private SSH key file without a passphrase .*, or unset gitSigningKey to write unsigned commits$/,
    );
    expect(await checkSigningKey({ format: 'ssh', key: 'keys/greenline' })).toBe(
      'gitSigningKey "keys/greenline" is not an absolute path: give the absolute path of the SSH key file (or ~/…), as greenline signs in other directories',
    );
  });
});

describe('serve with gitSigningKey', () => {
  it('refuses to start when git cannot sign with the key, naming the setting; starts with a good one', async () => {
    const serve = async (signingKey: string) => {
      const config = loadConfig({
        env: {
          GREENLINE_PORT: '0',
          GREENLINE_DATA_DIR: path.join(fx.root, 'srv'),
          GREENLINE_GIT_SIGNING_KEY: signingKey,
        },
        cwd: fx.root,
      });
      const server = createServer(config, logger);
      try {
        await server.start();
      } finally {
        await server.stop();
      }
    };
    const missing = path.join(fx.root, 'missing-key');
    await expect(serve(missing)).rejects.toThrow(ConfigError);
    await expect(serve(missing)).rejects.toThrow(`git cannot sign commits with gitSigningKey "${missing}"`);
    await expect(serve(key.key)).resolves.toBeUndefined();
  });
});
