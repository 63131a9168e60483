/**
 * The suite's leak check (vitest `setupFiles`): a test file that leaves a server, socket, timer,
 * child process, temporary directory, CI worktree or test branch behind fails, with a report naming
 * each leftover. Its hooks are registered before the file's own, so its afterAll runs after theirs.
 */
import { afterAll } from 'vitest';
import { startFileCheck } from './file-check.js';

// The baseline is taken as the file is loaded, outside any hook: while a hook runs, vitest holds a
// timer for its timeout, and the end of the file is checked in a hook vitest holds none for.
const check = startFileCheck();

// vitest wants the first parameter (the context) destructured; the second is the file.
// biome-ignore lint/correctness/noEmptyPattern: vitest reads the hook's first parameter as a destructured context
afterAll(async ({}, file) => {
  const report = await check.finish('filepath' in file ? file.filepath : file.name);
  if (report) throw new Error(report);
});
