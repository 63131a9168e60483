/**
 * What keeps the event loop alive: `process.getActiveResourcesInfo()` names one entry per ref'ed
 * resource (TCPServerWrap, TCPSocketWrap, Timeout, ProcessWrap, FSEventWrap, …). A test file must end
 * with no more of each kind than it started with. The test worker's own IPC pipes are there at the
 * start already, so they cancel out, and vitest's own short timer (it batches its reports) is gone
 * within ~0.1 s: no allowlist is needed.
 *
 * The kinds say what leaked; `describeHandles` adds which one (a server's address, a socket's peer,
 * a child's command line). Where a timer was created is only known when LEAK_TRACE=1 turned on
 * async_hooks tracking (see trace.ts): that costs too much to run always.
 */
import { originOf } from './trace.js';

export type Counts = Map<string, number>;

export function countResources(): Counts {
  const counts: Counts = new Map();
  for (const type of process.getActiveResourcesInfo()) counts.set(type, (counts.get(type) ?? 0) + 1);
  return counts;
}

/** The kinds with more resources now than in `baseline`, and how many more. */
export function excess(baseline: Counts, now: Counts = countResources()): Counts {
  const more: Counts = new Map();
  for (const [type, n] of now) {
    const extra = n - (baseline.get(type) ?? 0);
    if (extra > 0) more.set(type, extra);
  }
  return more;
}

interface HandleLike {
  constructor?: { name?: string };
  address?: () => unknown;
  remoteAddress?: string;
  remotePort?: number;
  localPort?: number;
  pid?: number;
  spawnargs?: string[];
  path?: string;
}

/** Servers, sockets and child processes alive now, in words. Only what the baseline did not hold. */
export function describeHandles(baseline: Set<unknown>): string[] {
  const handles = (process as unknown as { _getActiveHandles(): HandleLike[] })._getActiveHandles();
  return handles
    .filter((h) => !baseline.has(h))
    .map((h) => {
      const origin = originOf(h as object);
      return describeHandle(h) + (origin ? `, started at\n  ${origin.replace(/\n/g, '\n  ')}` : '');
    });
}

export function activeHandles(): Set<unknown> {
  return new Set((process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles());
}

function describeHandle(h: HandleLike): string {
  const kind = h.constructor?.name ?? 'handle';
  if (Array.isArray(h.spawnargs)) return `child process ${h.pid ?? '?'}: ${h.spawnargs.join(' ').slice(0, 200)}`;
  if (kind === 'Server' && typeof h.address === 'function') {
    const a = h.address() as { address: string; port: number } | string | null;
    return `server listening on ${a === null ? '(not listening)' : typeof a === 'string' ? a : `${a.address}:${a.port}`}`;
  }
  if (h.remoteAddress !== undefined) return `socket ${h.localPort ?? '?'} → ${h.remoteAddress}:${h.remotePort ?? '?'}`;
  if (kind === 'FSWatcher' || kind === 'StatWatcher') return `file watcher${h.path ? ` on ${h.path}` : ''}`;
  return kind;
}
