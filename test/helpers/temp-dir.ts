/**
 * Temporary directories for tests, known to the suite's leak check (test/leak-check/): a directory
 * made here must be removed with `removeTempDir` by the end of the test file, and what greenline left
 * in it — CI worktrees, their mirror registrations, `greenline-merge/*` test branches on a bare remote
 * — is reported as a leak, as is the directory itself when it is still there.
 *
 *   const dir = await makeTempDir('greenline-e2e-');
 *   afterAll(() => removeTempDir(dir));
 */
import { mkdtempSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gitLeftovers } from '../leak-check/git-leftovers.js';
import { registry } from '../leak-check/registry.js';

function register(dir: string): string {
  registry().live.add(dir);
  registry().all.add(dir);
  return dir;
}

export async function makeTempDir(prefix: string): Promise<string> {
  return register(await mkdtemp(path.join(tmpdir(), prefix)));
}

export function makeTempDirSync(prefix: string): string {
  return register(mkdtempSync(path.join(tmpdir(), prefix)));
}

/** Checks the directory for leftovers (reported at the end of the file), then removes it. */
export async function removeTempDir(dir: string): Promise<void> {
  const r = registry();
  if (r.live.delete(dir)) r.found.push(...(await gitLeftovers(dir)));
  await rm(dir, { recursive: true, force: true });
}
