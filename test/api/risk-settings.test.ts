/**
 * Risk-aware batching through the HTTP API (docs/api.md "Risk-aware batching (extension)"): on by
 * default and then absent from getQueue, as on a queue that never had it; updateQueue turns it off in
 * any letter case, and getQueue then says so.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiHarness, errorOf, json, type ApiHarness } from './api-harness.js';

let h: ApiHarness;
beforeEach(async () => {
  h = await createApiHarness();
  await h.queueWithPrs(0);
});
afterEach(() => h.close());

const update = (fields: Record<string, unknown>) => h.post('/v1/updateQueue', h.body(fields));
const getQueue = async () => json(await h.post('/v1/getQueue', h.body()));

describe('riskAwareBatching', () => {
  it('is absent while on, the default, and reported once turned off', async () => {
    expect(await getQueue()).not.toHaveProperty('riskAwareBatching');
    expect((await update({ riskAwareBatching: 'OFF' })).statusCode).toBe(200);
    expect(await getQueue()).toMatchObject({ riskAwareBatching: 'off' });
    expect((await update({ riskAwareBatching: 'on' })).statusCode).toBe(200);
    expect(await getQueue()).not.toHaveProperty('riskAwareBatching');
  });

  it('refuses a value it does not know with 400 naming the field, and changes nothing', async () => {
    const res = await update({ concurrency: 6, riskAwareBatching: 'sometimes' });
    expect(errorOf(res)).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
      message: 'Invalid request: body/riskAwareBatching must be one of off, on (any letter case)',
    });
    const queue = await getQueue();
    expect(queue.concurrency).toBe(1);
    expect(queue).not.toHaveProperty('riskAwareBatching');
  });
});
