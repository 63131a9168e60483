/**
 * The JSON body parser of the v1 API. It replaces Fastify's so that a syntax error is reported with
 * the parser's own explanation (where the JSON breaks), and keeps Fastify's protection against
 * prototype poisoning: objects with a `__proto__` key, or a `constructor` key holding `prototype`,
 * are refused.
 */
import type { FastifyRequest } from 'fastify';
import { RequestError } from './request-error.js';

/** The first forbidden key in `value`; iterative, so that deeply nested bodies cannot overflow the stack. */
function poisonedKey(value: unknown): string | null {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) {
      for (const item of node) pending.push(item);
      continue;
    }
    if (Object.hasOwn(node, '__proto__')) return '__proto__';
    const record = node as Record<string, unknown>;
    const ctor = record.constructor;
    if (
      Object.hasOwn(record, 'constructor') &&
      typeof ctor === 'object' &&
      ctor !== null &&
      Object.hasOwn(ctor, 'prototype')
    ) {
      return 'constructor.prototype';
    }
    for (const key in record) pending.push(record[key]);
  }
  return null;
}

export function parseJsonBody(
  _request: FastifyRequest,
  body: string,
  done: (error: Error | null, value?: unknown) => void,
): void {
  if (body.length === 0) {
    done(new RequestError('INVALID_JSON', 'the body is empty'));
    return;
  }
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    done(new RequestError('INVALID_JSON', (error as Error).message));
    return;
  }
  // Without either name in the text, and no escape that could spell one, no key can be either.
  const suspect = body.includes('__proto__') || body.includes('constructor') || body.includes('\\');
  const key = suspect ? poisonedKey(value) : null;
  if (key) done(new RequestError('INVALID_JSON', `a "${key}" key is not allowed`));
  else done(null, value);
}
