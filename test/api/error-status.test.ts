/**
 * The wires' tables of error codes: every code of the service's catalogue (src/lib/errors.ts) and of
 * the request's (src/api/request-error.ts) has a v1 answer and a v2 answer, so a new code without
 * its mapping fails here; v1 keeps its wire codes, v2 answers each cause with Trunk's code for it.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { V1_ERRORS } from '../../src/api/v1/error-status.js';
import { REQUEST_ERRORS } from '../../src/api/request-error.js';
import { V2_ERRORS } from '../../src/api/v2/errors.js';
import { SERVICE_ERRORS } from '../../src/lib/errors.js';

const codes = [...Object.keys(SERVICE_ERRORS), ...Object.keys(REQUEST_ERRORS)];
const TRUNK_V2 = JSON.parse(
  readFileSync(new URL('../fixtures/trunk/trunk-openapi-v2-merge-queue.json', import.meta.url), 'utf8'),
) as { components: { schemas: { ErrorCode: { enum: string[] } } } };

/** The engine's refusals that v1 has always answered as one 400 INVALID_OPERATION. */
const V1_INVALID_OPERATION = [
  'SWITCHING_MODES',
  'PR_BEING_MERGED',
  'INVALID_CONFIG',
  'INVALID_EVENT',
  'WEBHOOK_DISABLED',
];

/** v1 answers an expired token as any other token it refuses: 401 UNAUTHORIZED, the message saying it expired. */
const V1_UNAUTHORIZED = ['TOKEN_EXPIRED'];

describe('the error tables', () => {
  it('no code is in both catalogues', () => {
    expect(Object.keys(SERVICE_ERRORS).filter((c) => c in REQUEST_ERRORS)).toEqual([]);
  });

  it.each([
    ['v1', V1_ERRORS],
    ['v2', V2_ERRORS],
  ] as const)('%s answers exactly the codes of the catalogues', (_wire, table) => {
    expect(Object.keys(table).sort()).toEqual([...codes].sort());
  });

  it('v1 writes each code as itself, but the refusals it always called INVALID_OPERATION and an expired token', () => {
    for (const code of codes) {
      const [status, wire] = V1_ERRORS[code as keyof typeof V1_ERRORS];
      if (V1_INVALID_OPERATION.includes(code)) expect([status, wire], code).toEqual([400, 'INVALID_OPERATION']);
      else if (V1_UNAUTHORIZED.includes(code)) expect([status, wire], code).toEqual([401, 'UNAUTHORIZED']);
      else expect(wire, code).toBe(code);
    }
  });

  it('v2 answers with the codes of Trunk v2, each under one status', () => {
    const statusOf = new Map<string, number>();
    for (const [code, [status, v2Code]] of Object.entries(V2_ERRORS)) {
      expect(TRUNK_V2.components.schemas.ErrorCode.enum, code).toContain(v2Code);
      expect(statusOf.get(v2Code) ?? status, `${code} → ${v2Code}`).toBe(status);
      statusOf.set(v2Code, status);
    }
  });

  it('v2 gives the refusals their own causes: only a queue switching modes is MODE_CHANGE_IN_PROGRESS', () => {
    const modeChange = Object.entries(V2_ERRORS).filter(([, [, v2]]) => v2 === 'MODE_CHANGE_IN_PROGRESS');
    expect(modeChange.map(([code]) => code)).toEqual(['SWITCHING_MODES']);
    expect(V2_ERRORS.PR_BEING_MERGED).toEqual([409, 'PR_NOT_IN_ACTIVE_STATE']);
    expect(V2_ERRORS.RESTART_NOT_ALLOWED).toEqual([422, 'PR_TESTS_NOT_RESTARTABLE']);
    expect(V2_ERRORS.INVALID_CONFIG).toEqual([400, 'VALIDATION_FAILED']);
  });
});
