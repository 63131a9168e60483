/**
 * With LEAK_TRACE=1 the leak check remembers where each timer, server, socket and child process was
 * created (async_hooks `init`), so a report can point at the line that leaked it. Off by default:
 * an async hook makes V8 track every promise, which slows the whole suite down.
 */
import { createHook } from 'node:async_hooks';

/** async_hooks resource types worth tracing: what `getActiveResourcesInfo()` reports as leaks. */
const TRACED = new Set(['Timeout', 'TCPSERVERWRAP', 'TCPWRAP', 'PIPESERVERWRAP', 'PIPEWRAP', 'PROCESSWRAP', 'FSEVENTWRAP', 'STATWATCHER', 'UDPWRAP', 'TTYWRAP']);

interface Traced {
  type: string;
  stack: string;
  resource: { hasRef?: () => boolean };
}

const live = new Map<number, Traced>();
let enabled = false;

export function traceEnabled(): boolean {
  return process.env.LEAK_TRACE === '1';
}

export function startTracing(): void {
  if (enabled || !traceEnabled()) return;
  enabled = true;
  createHook({
    init(asyncId, type, _trigger, resource) {
      if (!TRACED.has(type)) return;
      const stack = (new Error().stack ?? '').split('\n').slice(2)
        .filter((line) => !line.includes('(node:') && !line.includes(' node:') && !line.includes('/node_modules/vitest') && !line.includes('/node_modules/@vitest'))
        .slice(0, 8).join('\n');
      live.set(asyncId, { type, stack, resource: resource as Traced['resource'] });
    },
    destroy(asyncId) {
      live.delete(asyncId);
    },
  }).enable();
}

/** Marks the start of a file: what is alive now is the baseline, not a leak. */
export function traceMark(): Set<number> {
  return new Set(live.keys());
}

/** Where the resources created since `mark` and still alive (and ref'ed) were created. */
export function tracedSince(mark: Set<number>): string[] {
  const out: string[] = [];
  for (const [id, t] of live) {
    if (mark.has(id) || t.resource.hasRef?.() === false) continue;
    out.push(`${t.type} created at\n${t.stack.replace(/^ */gm, '  ')}`);
  }
  return out;
}
