/**
 * With LEAK_TRACE=1 the leak check remembers where each timer, server, socket and child process was
 * created (async_hooks `init`; a server's or socket's handle is made after `listen` or `connect`
 * returned, so for those the call is remembered), so a report can point at the line that leaked it. Off by default:
 * an async hook makes V8 track every promise, which slows the whole suite down.
 */
import { createHook } from 'node:async_hooks';
import net from 'node:net';

/** async_hooks resource types worth tracing: what `getActiveResourcesInfo()` reports as leaks. */
const TRACED = new Set([
  'Timeout',
  'TCPSERVERWRAP',
  'TCPWRAP',
  'PIPESERVERWRAP',
  'PIPEWRAP',
  'PROCESSWRAP',
  'FSEVENTWRAP',
  'STATWATCHER',
  'UDPWRAP',
  'TTYWRAP',
]);

interface Traced {
  type: string;
  stack: string;
  resource: { hasRef?: () => boolean };
}

const live = new Map<number, Traced>();
/** Where each server was told to listen and each socket to connect: their handles are made later. */
const origins = new WeakMap<object, string>();
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
      const stack = callerStack();
      if (stack) live.set(asyncId, { type, stack, resource: resource as Traced['resource'] });
    },
    destroy(asyncId) {
      live.delete(asyncId);
    },
  }).enable();
  for (const [proto, method] of [
    [net.Server.prototype, 'listen'],
    [net.Socket.prototype, 'connect'],
  ] as const) {
    const methods = proto as unknown as Record<string, (...args: unknown[]) => unknown>;
    const original = methods[method]!;
    methods[method] = function (this: object, ...args: unknown[]) {
      if (!origins.has(this)) origins.set(this, callerStack());
      return original.apply(this, args);
    };
  }
}

/** The frames of the current stack outside node and vitest, at most 8. */
function callerStack(): string {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 40; // node's own frames come first
  const captured = new Error().stack ?? '';
  Error.stackTraceLimit = limit;
  return captured
    .split('\n')
    .slice(2)
    .filter(
      (line) =>
        !line.includes('(node:') &&
        !line.includes(' node:') &&
        !line.includes('/node_modules/vitest') &&
        !line.includes('/node_modules/@vitest') &&
        !line.includes('leak-check/trace.ts'),
    )
    .slice(0, 8)
    .map((line) => line.trim())
    .join('\n');
}

/** Where a server or socket was started, when traced. */
export function originOf(handle: object): string | undefined {
  return origins.get(handle) || undefined;
}

/** Marks the start of a file: what is alive now is the baseline, not a leak. */
export function traceMark(): Set<number> {
  return new Set(live.keys());
}

/** Where the resources created since `mark` and still alive (and ref'ed) were created. */
export function tracedSince(mark: Set<number>): string[] {
  const out: string[] = [];
  for (const [id, t] of live) {
    // The check's own polling timer is not the file's.
    if (mark.has(id) || t.resource.hasRef?.() === false || t.stack.includes('leak-check/file-check.ts')) continue;
    out.push(`${t.type} created at\n  ${t.stack.replace(/\n/g, '\n  ')}`);
  }
  return out;
}
