/**
 * Adaptive mode through the HTTP API (docs/api.md "Adaptive mode (extension)"): updateQueue takes
 * `adaptiveMode` in any letter case and `adaptiveMinConcurrency`; getQueue reports the settings and what
 * the mode does now only while it is on, so that other queues answer exactly Trunk's shape.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiHarness, errorOf, json, type ApiHarness } from './api-harness.js';

const EXTENSION_FIELDS = [
  'adaptiveMode',
  'adaptiveMinConcurrency',
  'adaptiveConcurrency',
  'adaptiveBatchSize',
  'adaptiveFailureRate',
];

let h: ApiHarness;
beforeEach(async () => {
  h = await createApiHarness();
  await h.queueWithPrs(0);
});
afterEach(() => h.close());

const update = (fields: Record<string, unknown>) => h.post('/v1/updateQueue', h.body(fields));
const getQueue = async () => json(await h.post('/v1/getQueue', h.body()));
const extensionFields = (queue: Record<string, unknown>) =>
  Object.keys(queue)
    .filter((k) => k.startsWith('adaptive'))
    .sort();

describe('adaptive mode settings', () => {
  it('are absent from getQueue while the mode is off, as on a queue that never had it', async () => {
    expect(extensionFields(await getQueue())).toEqual([]);
    const res = await update({ concurrency: 6, adaptiveMode: 'off' });
    expect(res.statusCode, res.body).toBe(200);
    expect(extensionFields(await getQueue())).toEqual([]);
  });

  it.each(['on', 'ON', 'On'])(
    'adaptiveMode %j turns it on: getQueue reports the settings and the window, batch size and failure rate',
    async (mode) => {
      const res = await update({
        concurrency: 6,
        batch: true,
        batchingMinSize: 8,
        adaptiveMode: mode,
        adaptiveMinConcurrency: 3,
      });
      expect(res.statusCode, res.body).toBe(200);
      const queue = await getQueue();
      expect(extensionFields(queue)).toEqual([...EXTENSION_FIELDS].sort());
      // Nothing measured yet: the window starts at the ceiling and batches at the setting.
      expect(queue).toMatchObject({
        concurrency: 6,
        adaptiveMode: 'on',
        adaptiveMinConcurrency: 3,
        adaptiveConcurrency: 6,
        adaptiveBatchSize: 8,
        adaptiveFailureRate: 0,
      });
    },
  );

  it('the floor defaults to 2, and the fields leave getQueue once the mode is turned off', async () => {
    expect((await update({ adaptiveMode: 'on' })).statusCode).toBe(200);
    expect(await getQueue()).toMatchObject({
      adaptiveMode: 'on',
      adaptiveMinConcurrency: 2,
      adaptiveConcurrency: 1,
      adaptiveBatchSize: 1,
    });
    expect((await update({ adaptiveMinConcurrency: 4 })).statusCode).toBe(200);
    expect(await getQueue()).toMatchObject({ adaptiveMinConcurrency: 4 });
    expect((await update({ adaptiveMode: 'OFF' })).statusCode).toBe(200);
    expect(extensionFields(await getQueue())).toEqual([]);
  });

  it.each([
    [{ adaptiveMode: 'auto' }, 'body/adaptiveMode must be one of off, on (any letter case)'],
    [{ adaptiveMinConcurrency: 0 }, 'body/adaptiveMinConcurrency must be an integer from 1 to 1000, got 0'],
  ])('%j is refused with 400 naming the field, and changes nothing', async (fields, message) => {
    const res = await update({ concurrency: 6, ...fields });
    expect(errorOf(res)).toEqual({ status: 400, code: 'VALIDATION_FAILED', message: `Invalid request: ${message}` });
    const queue = await getQueue();
    expect(queue.concurrency).toBe(1);
    expect(extensionFields(queue)).toEqual([]);
  });
});
