/**
 * Malformed requests across every endpoint — 2,000 on SQLite, 500 more on PostgreSQL where reachable
 * (it refuses text SQLite stores, such as NUL characters): whatever the body, the answer is never a
 * 5xx, and every refusal is a catalogue error in the wire format.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { V1_ERRORS } from '../../src/api/v1/error-status.js';
import { testDatabases } from '../helpers/databases.js';
import { createApiHarness, REPO, SLUG, type ApiHarness } from './api-harness.js';

const RUNS = { sqlite: 2000, postgres: 500 };

const SHA = 'c'.repeat(40);
const key = { repo: REPO, targetBranch: 'main' };
/** A valid body of each POST endpoint: the fuzzer breaks them in every way. */
const VALID: Record<string, Record<string, unknown>> = {
  submitPullRequest: { ...key, pr: { number: 1 }, priority: 'high', noBatch: false },
  queuePullRequest: { ...key, pr: { number: '2' } },
  cancelPullRequest: { ...key, pr: { number: 1 } },
  restartTestsOnPullRequest: { ...key, pr: { number: 1 } },
  getSubmittedPullRequest: { ...key, pr: { number: 1 } },
  listPullRequests: { ...key, state: 'pending', take: 10, since: '2026-01-01T00:00:00Z' },
  setImpactedTargets: { ...key, pr: { number: '3', sha: SHA }, impactedTargets: ['//a', '//b'] },
  getMergeQueueTestingDetails: { ...key, testRunId: 'run-1' },
  createQueue: { ...key, mode: 'single', concurrency: 2 },
  getQueue: { ...key },
  updateQueue: { ...key, state: 'running', batch: true, requiredStatuses: ['ci'], testingTimeoutMins: 30 },
  deleteQueue: { targetBranch: 'other', repo: REPO },
  reportStatus: { repo: REPO, testRunId: 'run-1', context: 'ci', state: 'success' },
  getTestRunLog: { ...key, testRunId: 'run-1' },
};

type Path = (string | number)[];
const paths = (value: unknown, prefix: Path = []): Path[] =>
  typeof value === 'object' && value !== null
    ? Object.entries(value).flatMap(([k, v]) => [[...prefix, k], ...paths(v, [...prefix, k])])
    : [];

function setAt(body: unknown, path: Path, replacement: unknown, remove: boolean): unknown {
  const copy = structuredClone(body) as Record<string | number, unknown>;
  let node = copy;
  for (const step of path.slice(0, -1)) node = node[step] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (remove) delete node[last];
  else node[last] = replacement;
  return copy;
}

const endpoint = fc.constantFrom(...Object.keys(VALID));
/** Short strings of the characters databases and git treat specially: NUL, controls, a lone surrogate. */
const awkward = fc.string({ unit: fc.constantFrom('a', '/', ' ', '\u0000', '\n', '\u007f', '\ud800', 'é') });
/** Any JSON value, its strings printable ASCII or any code point, or an awkward string. */
const jsonValue = fc.oneof(fc.jsonValue(), fc.jsonValue({ stringUnit: 'binary' }), awkward);
/** A valid body with one field replaced by anything, or removed. */
const mutated = endpoint.chain((name) => {
  const all = paths(VALID[name]);
  return fc.record({
    name: fc.constant(name),
    raw: fc
      .tuple(fc.constantFrom(...all), jsonValue, fc.boolean())
      .map(([path, value, remove]) => JSON.stringify(setAt(VALID[name], path, value, remove))),
  });
});
/** Any JSON value as the whole body. */
const anyJson = fc.record({ name: endpoint, raw: jsonValue.map((v) => JSON.stringify(v)) });
/** Text that is mostly not JSON at all. */
const anyText = fc.record({ name: endpoint, raw: fc.oneof(fc.string(), fc.string({ unit: 'binary' })) });
/** Metrics query strings. */
const query = fc.record({
  name: fc.constant('getMergeQueueMetrics'),
  raw: fc
    .tuple(fc.option(fc.string({ unit: 'binary' })), fc.option(fc.string({ unit: 'binary' })))
    .map(([repo, host]) =>
      new URLSearchParams([
        ...(repo === null ? [] : [['repo', repo]]),
        ...(host === null ? [] : [['repoHost', host]]),
      ]).toString(),
    ),
});

describe.each(await testDatabases())('malformed requests on $name', (database) => {
  let h: ApiHarness;
  beforeAll(async () => {
    h = await createApiHarness({ databaseUrl: await database.url() });
    await h.queueWithPrs(3);
  });
  afterAll(async () => {
    await h.close();
    await database.cleanup();
  });

  it('never get a 5xx', async () => {
    const codes = new Set<string>(Object.values(V1_ERRORS).map(([, code]) => code));
    await fc.assert(
      fc.asyncProperty(fc.oneof(mutated, mutated, anyJson, anyText, query), async ({ name, raw }) => {
        const res =
          name === 'getMergeQueueMetrics'
            ? await h.get(`/v1/getMergeQueueMetrics?${raw}`)
            : await h.post(`/v1/${name}`, raw);
        expect(res.statusCode, `${name} ${raw} → ${res.body}`).toBeLessThan(500);
        if (res.statusCode >= 400) {
          const { error } = JSON.parse(res.body);
          expect(codes.has(error.code), res.body).toBe(true);
          expect(typeof error.message).toBe('string');
        }
        await h.t.runEffects();
      }),
      {
        numRuns: RUNS[database.name],
        // The valid submit runs first on every run, so the mutants that follow meet a queue with a PR in it
        // (how often a random mutant is still valid is left to chance).
        examples: [[{ name: 'submitPullRequest', raw: JSON.stringify(VALID.submitPullRequest) }]],
      },
    );
    // The forge was really called: requests reached the service, not only the validator.
    expect(h.t.forge.calls.some((c) => c.startsWith(`getPullRequest ${SLUG}`))).toBe(true);
  });
});
