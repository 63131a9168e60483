/**
 * Metrics come from the database, the shared truth: two instances over one database answer the
 * same text at the same moment, whichever of them did the work (SQLite file, and PostgreSQL).
 */
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { buildHttpApp } from '../../src/api/build-app.js';
import { SLUG } from '../api/api-harness.js';
import { testDatabases, type TestDatabase } from '../helpers/databases.js';
import { createTestService, type TestService } from '../helpers/service.js';
import { createMetricsHarness } from './scrape.js';
import { makeTempDirSync, removeTempDir } from '../helpers/temp-dir.js';

/** Two instances share a SQLite database in a file, not in memory. */
const sqliteFile = (): TestDatabase => {
  const dir = makeTempDirSync('greenline-metrics-');
  return {
    name: 'sqlite',
    url: async () => `sqlite:${join(dir, 'greenline.db')}`,
    cleanup: async () => removeTempDir(dir),
  };
};
const databases = (await testDatabases()).map((d) => (d.name === 'sqlite' ? sqliteFile() : d));

describe.each(databases.map((d) => [d.name, d] as [string, TestDatabase]))(
  'two instances on one %s database',
  (_name, database) => {
    afterAll(() => database.cleanup());

    it('answer the same metrics', async () => {
      const url = await database.url();
      const a = await createMetricsHarness(url);
      let b: TestService | undefined;
      let bHttp: FastifyInstance | undefined;
      try {
        b = await createTestService({ databaseUrl: url });
        bHttp = await buildHttpApp({ service: b.service, logger: false, enumCase: 'upper' });
        const scrapeBoth = async () => {
          b!.clock.set(a.h.t.clock.now());
          const texts = await Promise.all(
            [a.h.app, bHttp!].map(
              async (app) =>
                (
                  await app.inject({
                    method: 'GET',
                    url: '/v1/getMergeQueueMetrics',
                    headers: { 'x-api-token': a.h.token },
                  })
                ).body,
            ),
          );
          expect(texts[1]).toBe(texts[0]);
          return texts[0]!;
        };

        const { t } = a.h;
        await t.service.createQueue(a.ctx, a.key, { concurrency: 2 });
        for (const number of [1, 2, 3]) t.forge.openPr(SLUG, { number });
        for (const number of [1, 2, 3]) await t.service.submitPullRequest(a.ctx, a.key, { prNumber: number });
        t.clock.advance(60_000);
        await t.runEffects();
        t.clock.advance(240_000);
        await t.ci.fail((await t.service.getSubmittedPullRequest(a.ctx, a.key, { number: 1 })).entry.runId!);
        await t.runEffects();
        // The other instance acts on the same queue: it cancels PR 3.
        b.clock.set(t.clock.now());
        await b.service.cancelPullRequest(a.ctx, a.key, 3);
        t.clock.advance(30_000);

        const text = await scrapeBoth();
        expect(text).toMatch(/^mq_pr_conclusions_1h_total\{[^}]*queue_type="main",conclusion="failed"\} 1$/m);
        expect(text).toMatch(/^mq_pr_conclusions_1h_total\{[^}]*queue_type="main",conclusion="cancelled"\} 1$/m);
        expect(text).toMatch(/^mq_testing_slots_active\{[^}]*queue_type="main"\} 1$/m);
      } finally {
        await bHttp?.close();
        await b?.close();
        await a.close();
      }
    });
  },
);
