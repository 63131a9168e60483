/**
 * The HTTP app over the real service (test/api/api-harness.ts), scraped through
 * GET /v1/getMergeQueueMetrics: each scrape checks the status, the content type and the lint, and
 * returns the parsed exposition.
 */
import { expect } from 'vitest';
import type { AuthContext, QueueKey } from '../../src/app/service-port.js';
import { createApiHarness, SLUG, type ApiHarness } from '../api/api-harness.js';
import { lint, readExposition, type Exposition } from './exposition.js';

export interface MetricsHarness {
  h: ApiHarness;
  ctx: AuthContext;
  key: QueueKey;
  scrape(query?: string): Promise<Exposition>;
  close(): Promise<void>;
}

export async function createMetricsHarness(databaseUrl?: string): Promise<MetricsHarness> {
  const h = await createApiHarness(databaseUrl ? { databaseUrl } : {});
  const ctx = (await h.t.service.authenticate(h.token))!;
  return {
    h,
    ctx,
    key: h.t.key(SLUG),
    async scrape(query = '') {
      const res = await h.get(`/v1/getMergeQueueMetrics${query}`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
      expect(lint(res.body)).toEqual([]);
      return readExposition(res.body);
    },
    close: () => h.close(),
  };
}
