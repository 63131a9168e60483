/**
 * The JSON body parser of the v1 API. It replaces Fastify's so that a syntax error is reported with
 * the parser's own explanation (where the JSON breaks), and keeps Fastify's protection against
 * prototype poisoning: objects with a `__proto__` key, or a `constructor` key holding `prototype`,
 * are refused.
 */
import type { FastifyRequest } from 'fastify';
import { HttpError } from '../errors.js';

function poisonedKey(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return null;
  if (Array.isArray(value)) {
    for (const item of value) {
      const key = poisonedKey(item);
      if (key) return key;
    }
    return null;
  }
  if (Object.hasOwn(value, '__proto__')) return '__proto__';
  const record = value as Record<string, unknown>;
  if (Object.hasOwn(record, 'constructor') && typeof record.constructor === 'object' &&
      record.constructor !== null && Object.hasOwn(record.constructor, 'prototype')) return 'constructor.prototype';
  for (const key in record) {
    const found = poisonedKey(record[key]);
    if (found) return found;
  }
  return null;
}

export function parseJsonBody(
  _request: FastifyRequest,
  body: string,
  done: (error: Error | null, value?: unknown) => void,
): void {
  if (body.length === 0) return done(new HttpError('INVALID_JSON', 'the body is empty'));
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    return done(new HttpError('INVALID_JSON', (error as Error).message));
  }
  const key = poisonedKey(value);
  if (key) return done(new HttpError('INVALID_JSON', `a "${key}" key is not allowed`));
  done(null, value);
}
