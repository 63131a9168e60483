/**
 * The leak check of one test file: `startFileCheck` takes a baseline before the file runs, `finish`
 * waits for what the file started to go away and returns, in words, what did not:
 *  - more active resources of a kind (servers, sockets, timers, child processes, watchers…) than at
 *    the start — handles.ts;
 *  - processes the file started that still run — processes.ts;
 *  - temporary directories it made and did not remove, and CI worktrees or test branches left in
 *    them — test/helpers/temp-dir.ts, git-leftovers.ts.
 * Closing is often asynchronous (a socket's peer closes after the server did, a killed process
 * exits a moment later), so `finish` polls until nothing is left or GRACE_MS passed: it waits for a
 * condition, it does not sleep a fixed time.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { gitLeftovers } from './git-leftovers.js';
import { activeHandles, countResources, describeHandles, excess, type Counts } from './handles.js';
import { describeProcess, OWNER_VAR, ownedProcesses, procKey, type Proc } from './processes.js';
import { registry, resetRegistry } from './registry.js';
import { startTracing, traceEnabled, traceMark, tracedSince } from './trace.js';

const GRACE_MS = 1_500;
const POLL_MS = 25;

export interface FileCheck {
  /** Empty when the file left nothing behind; otherwise the report. */
  finish(file: string): Promise<string>;
}

export function startFileCheck(): FileCheck {
  startTracing();
  resetRegistry();
  const owner = `${process.pid}-${randomBytes(4).toString('hex')}`;
  process.env[OWNER_VAR] = owner;
  const counts = countResources();
  const handles = activeHandles();
  const traced = traceMark();
  const procs = new Set(ownedProcesses(owner, []).map(procKey));
  const newProcesses = (): Proc[] => ownedProcesses(owner, [...registry().all]).filter((p) => !procs.has(procKey(p)));

  return {
    async finish(file) {
      let more: Counts = excess(counts);
      let running = newProcesses();
      const until = Date.now() + GRACE_MS;
      while ((more.size > 0 || running.length > 0) && Date.now() < until) {
        await sleep(POLL_MS);
        more = excess(counts);
        running = newProcesses();
      }
      const lines: string[] = [];
      if (more.size > 0) {
        const details = [
          ...describeHandles(handles),
          ...(traceEnabled() ? tracedSince(traced) : ['(run again with LEAK_TRACE=1 to see where each was created)']),
        ];
        lines.push(
          `active resources beyond those at the file's start (after ${GRACE_MS / 1000}s to close): ${[...more].map(([t, n]) => `${n} × ${t}`).join(', ')}${details.map((d) => `\n      ${d.replace(/\n/g, '\n      ')}`).join('')}`,
        );
      }
      lines.push(...running.map((p) => `${describeProcess(p)} is still running`));
      const r = registry();
      lines.push(...r.found);
      for (const dir of r.live) {
        if (!existsSync(dir)) continue;
        lines.push(...(await gitLeftovers(dir)), `temporary directory ${dir} was not removed (removeTempDir)`);
      }
      if (lines.length === 0) return '';
      return `${file} left things behind (each test file must stop and remove what it starts):\n${lines.map((l) => `  - ${l}`).join('\n')}`;
    },
  };
}
