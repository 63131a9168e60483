import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { PG_ADMIN_URL, PG_REQUIRED_MESSAGE, pgReachable, TEST_DATABASE_ENV } from './test/helpers/pg-admin.js';

/**
 * Tests by cost, as projects. `npm test` runs the quick tier, the projects `sqlite` and `other`: the
 * tests that run inside vitest's workers, with no build, browser, container or PostgreSQL, on every
 * core (`--maxWorkers=100%`; vitest's default leaves one free, on two cores a single worker: 557 s
 * against 413 s measured here under a load of 6). `npm run test:all` (what CI runs) builds and runs
 * every project: also `postgres`, `processes`, `browser` and `container`.
 *
 * The service and API tests run on both databases, as the projects `sqlite` and `postgres`: the test
 * files under these folders that reach test/helpers/service.ts or test/helpers/databases.ts through
 * their imports. The project's database is in GREENLINE_TEST_DATABASE (see test/helpers/databases.ts).
 * Every other test file runs once: in `processes`, `browser` or `container` when listed below,
 * otherwise in the project `other`.
 */
const DATABASE_FOLDERS = ['test/app', 'test/api', 'test/webhooks', 'test/metrics', 'test/client'];
const DATABASE_HELPERS = ['test/helpers/service.ts', 'test/helpers/databases.ts'].map((f) => path.resolve(f));
/** Runs on PostgreSQL alone: nothing to run in the `sqlite` project. */
const POSTGRES_ONLY = ['test/app/postgres.test.ts'];
/**
 * Folders and files whose tests run programs as child processes: `greenline` servers and commands
 * (from dist/, built by `npm run build`; the command line falls back to the sources through tsx,
 * slower still), tsc, systemd-analyze, end-to-end runs. On this two-core machine, loaded by other
 * work, those measured took from half a minute to six minutes each, most of it starting processes,
 * and without a build the command-line ones failed their 30 s timeouts; the slowest file left in the
 * quick tier, the engine's property tests, took a minute and a half.
 */
const PROCESS_TESTS = [
  'test/e2e',
  'test/cli/admin-commands.test.ts',
  'test/cli/demo-repo.test.ts',
  'test/cli/serve.test.ts',
  'test/cli/serve-github.test.ts',
  'test/cli/version.test.ts',
  'test/cli/hook-post-receive.test.ts',
  'test/client/cli-freeze.test.ts',
  'test/client/cli-pr.test.ts',
  'test/client/cli-queue.test.ts',
  'test/client/cli-v2.test.ts',
  'test/client/sdk-package.test.ts',
  'test/deploy/manifests.test.ts',
  'test/notify/api.test.ts',
  'test/sim/simulate-cli.test.ts',
  'test/webhooks/cli.test.ts',
];
/** The dashboard in Chromium. */
const BROWSER_TESTS = ['test/dashboard'];
/** The image built and run with podman. */
const CONTAINER_TESTS = ['test/deploy/container.test.ts'];

const testFiles = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => path.join(dir, f));

/** Whether `file` is one of `entries` or lies in one of their folders. */
const within =
  (entries: string[]) =>
  (file: string): boolean =>
    entries.some((e) => file === e || file.startsWith(`${e}/`));

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
  const databaseTests = DATABASE_FOLDERS.flatMap(testFiles).filter((f) => reachesDatabase(f));
  const postgres = await pgReachable();
  if (!postgres && process.env.CI === 'true') throw new Error(PG_REQUIRED_MESSAGE);
  if (!postgres) {
    console.warn(`NOTICE: PostgreSQL at ${PG_ADMIN_URL} is unreachable; service and API tests run on SQLite only`);
  }
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
            include: databaseTests.filter((f) => !POSTGRES_ONLY.includes(f)),
            env: { [TEST_DATABASE_ENV]: 'sqlite' },
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
            include: testFiles('test').filter(
              (f) =>
                !databaseTests.includes(f) &&
                ![PROCESS_TESTS, BROWSER_TESTS, CONTAINER_TESTS].some((l) => within(l)(f)),
            ),
          },
        },
        { extends: true, test: { name: 'processes', include: testFiles('test').filter(within(PROCESS_TESTS)) } },
        { extends: true, test: { name: 'browser', include: testFiles('test').filter(within(BROWSER_TESTS)) } },
        { extends: true, test: { name: 'container', include: testFiles('test').filter(within(CONTAINER_TESTS)) } },
      ],
    },
  };
});
