import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { PG_ADMIN_URL, PG_REQUIRED_MESSAGE, pgReachable, TEST_DATABASE_ENV } from './test/helpers/pg-admin.js';

/**
 * Tests by cost, as projects, chosen by the test file's name:
 *
 * - `*.test.ts`: in-process and quick. The quick loop, `npm test`, runs them: the projects `sqlite` and
 *   `other`, on every core (`--maxWorkers=100%`; vitest's default leaves one free, on two cores a single
 *   worker).
 * - `*.slow.test.ts`: in-process but slow (real forges' doubles over HTTP, the contract against real
 *   forges): the project `slow`.
 * - `*.process.test.ts`: starts programs as child processes (`greenline` servers and commands from
 *   dist/, built by `npm run build`; tsc, systemd-analyze, end-to-end runs): the project `processes`.
 * - `*.browser.test.ts`: the dashboard in Chromium: the project `browser`.
 * - `*.container.test.ts`: the image built and run with podman: the project `container`.
 *
 * The quick projects load modules once per worker, not once per test file (`isolate: false`: a third
 * of the quick loop's time went to importing the same modules again): a quick test file must not rely
 * on module state another file left (each still gets its own leak check, setup file and services).
 *
 * `npm run test:all` (what CI runs) builds and runs every project, `postgres` too. The service and API
 * tests run on both databases: the quick test files under DATABASE_FOLDERS that reach
 * test/helpers/service.ts or test/helpers/databases.ts through their imports run in `sqlite` and
 * `postgres`, the slow ones in `slow-sqlite` and `postgres`. The project's database is in
 * GREENLINE_TEST_DATABASE (see test/helpers/databases.ts).
 */
const DATABASE_FOLDERS = ['test/app', 'test/api', 'test/webhooks', 'test/metrics', 'test/client'];
const DATABASE_HELPERS = ['test/helpers/service.ts', 'test/helpers/databases.ts'].map((f) => path.resolve(f));
/** Runs on PostgreSQL alone: nothing to run in the `sqlite` project. */
const POSTGRES_ONLY = ['test/app/postgres.test.ts'];
/** The tiers beyond the quick one, by the suffix of their test files' names. */
const TIERS = {
  slow: '.slow.test.ts',
  processes: '.process.test.ts',
  browser: '.browser.test.ts',
  container: '.container.test.ts',
};
/**
 * The quick loop (`npm test`) runs the property tests over fewer generated cases — the engine's 50
 * instead of 200–300, the effects under random kills 20 instead of 60 — and `npm run test:all` at full
 * depth. A count set by hand (ENGINE_PROPERTY_RUNS, EFFECT_KILL_RUNS) wins in both.
 */
const QUICK = process.env.npm_lifecycle_event === 'test';
const quickRuns = (name: string, runs: number): Record<string, string> =>
  QUICK && process.env[name] === undefined ? { [name]: String(runs) } : {};
const QUICK_PROPERTY_RUNS = { ...quickRuns('ENGINE_PROPERTY_RUNS', 50), ...quickRuns('EFFECT_KILL_RUNS', 20) };
const tierOf = (file: string): keyof typeof TIERS | 'quick' =>
  (Object.keys(TIERS) as (keyof typeof TIERS)[]).find((tier) => file.endsWith(TIERS[tier])) ?? 'quick';

const testFiles = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => path.join(dir, f));

/** Whether `file` imports (directly or through other local modules) a database helper. */
function reachesDatabase(file: string, seen = new Set<string>()): boolean {
  const abs = path.resolve(file);
  if (DATABASE_HELPERS.includes(abs)) return true;
  if (seen.has(abs) || !existsSync(abs)) return false;
  seen.add(abs);
  const imports = readFileSync(abs, 'utf8').matchAll(/^(?:import|export)\b[^;]*?from '(\.[^']+)'/gms);
  return [...imports].some(([, spec]) =>
    reachesDatabase(path.resolve(path.dirname(abs), spec!.replace(/\.js$/, '.ts')), seen),
  );
}

export default defineConfig(async () => {
  const all = testFiles('test');
  const databaseTests = DATABASE_FOLDERS.flatMap(testFiles).filter(
    (f) => ['quick', 'slow'].includes(tierOf(f)) && reachesDatabase(f),
  );
  const quick = all.filter((f) => tierOf(f) === 'quick');
  const slowDatabaseTests = databaseTests.filter((f) => tierOf(f) === 'slow' && !POSTGRES_ONLY.includes(f));
  const postgres = await pgReachable();
  if (!postgres && process.env.CI === 'true') throw new Error(PG_REQUIRED_MESSAGE);
  if (!postgres) {
    console.warn(`NOTICE: PostgreSQL at ${PG_ADMIN_URL} is unreachable; service and API tests run on SQLite only`);
  }
  const tier = (name: keyof typeof TIERS, include: string[]) => ({ extends: true, test: { name, include } });
  return {
    test: {
      testTimeout: 30_000,
      hookTimeout: 30_000,
      pool: 'forks',
      // Fails a test file that leaves servers, timers, processes, worktrees or test branches behind.
      setupFiles: ['test/leak-check/setup.ts'],
      projects: [
        {
          extends: true,
          test: {
            name: 'sqlite',
            isolate: false,
            include: quick.filter((f) => databaseTests.includes(f) && !POSTGRES_ONLY.includes(f)),
            env: { [TEST_DATABASE_ENV]: 'sqlite', ...QUICK_PROPERTY_RUNS },
          },
        },
        ...(postgres
          ? [
              {
                extends: true,
                test: {
                  name: 'postgres',
                  include: databaseTests,
                  env: { [TEST_DATABASE_ENV]: 'postgres' },
                  globalSetup: ['test/helpers/pg-template.setup.ts'],
                },
              },
            ]
          : []),
        {
          extends: true,
          test: {
            name: 'other',
            isolate: false,
            include: quick.filter((f) => !databaseTests.includes(f)),
            env: QUICK_PROPERTY_RUNS,
          },
        },
        tier(
          'slow',
          all.filter((f) => tierOf(f) === 'slow' && !databaseTests.includes(f)),
        ),
        // The slow service and API tests on SQLite, when there are any (on PostgreSQL they are in
        // `postgres`); the other slow files run without GREENLINE_TEST_DATABASE, which the server's
        // configuration would refuse.
        ...(slowDatabaseTests.length > 0
          ? [
              {
                extends: true,
                test: { name: 'slow-sqlite', include: slowDatabaseTests, env: { [TEST_DATABASE_ENV]: 'sqlite' } },
              },
            ]
          : []),
        tier(
          'processes',
          all.filter((f) => tierOf(f) === 'processes'),
        ),
        tier(
          'browser',
          all.filter((f) => tierOf(f) === 'browser'),
        ),
        tier(
          'container',
          all.filter((f) => tierOf(f) === 'container'),
        ),
      ],
    },
  };
});
