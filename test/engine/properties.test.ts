/**
 * Property tests: random event sequences against the model forge and CI of harness.ts. After every
 * decision the harness checks the target-branch invariant, that no PR is lost or merged twice,
 * immutability and identity, and (parallel mode) that runs only include overlapping PRs. After the
 * sequence everything is drained with passing CI: every PR must end terminal, and with deterministic
 * CI no PR whose own code is good may end FAILED. With CI that flakes, cancels and is retried
 * (`ciRetries` 0–2): still no bad PR merges, none is lost or merged twice, every merge (single mode)
 * is of a commit whose CI passed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ImpactedTargets, QueueConfig } from '../../src/engine/index.js';
import { Harness } from './harness.js';

const PRS = 8;
const pr = fc.integer({ min: 1, max: PRS });
const targets: fc.Arbitrary<ImpactedTargets> = fc.oneof(
  { weight: 8, arbitrary: fc.subarray(['a', 'b', 'c', 'd'], { minLength: 1 }) },
  { weight: 1, arbitrary: fc.constant('ALL' as const) },
  { weight: 1, arbitrary: fc.constant([] as string[]) },
);

type Action =
  | { t: 'deliver'; i: number; flake: boolean }
  | {
      t: 'submit';
      pr: number;
      priority: number | string | undefined;
      noBatch: boolean;
      ready: boolean;
      targets: ImpactedTargets;
    }
  | { t: 'observe'; pr: number }
  | { t: 'cancel'; pr: number }
  | { t: 'restart'; pr: number }
  | { t: 'pushPr'; pr: number }
  | { t: 'pushTarget' }
  | { t: 'mergeOutside'; pr: number }
  | { t: 'state'; state: 'RUNNING' | 'PAUSED' | 'DRAINING' }
  | { t: 'config'; patch: Partial<QueueConfig> }
  | { t: 'time'; ms: number };

const configPatch: fc.Arbitrary<Partial<QueueConfig>> = fc.record(
  {
    concurrency: fc.integer({ min: 1, max: 4 }),
    batch: fc.boolean(),
    batchingMinSize: fc.integer({ min: 1, max: 4 }),
    pendingFailureDepth: fc.integer({ min: 0, max: 2 }),
    canOptimisticallyMerge: fc.boolean(),
    bisectionConcurrency: fc.integer({ min: 1, max: 2 }),
    optimizationMode: fc.constantFrom('off' as const, 'bisection_skip_redundant_tests' as const),
    adaptiveMode: fc.constantFrom('off' as const, 'on' as const),
    adaptiveMinConcurrency: fc.integer({ min: 1, max: 3 }),
  },
  { requiredKeys: [] },
);

function actions(opts: {
  flakes: boolean;
  modeSwitch: boolean;
  chaos: boolean;
  batching?: boolean;
}): fc.Arbitrary<Action[]> {
  const rare = opts.chaos ? 1 : 0;
  const action: fc.Arbitrary<Action> = fc.oneof(
    {
      weight: 12,
      arbitrary: fc.record({
        t: fc.constant('deliver' as const),
        i: fc.nat(),
        flake: opts.flakes ? fc.integer({ min: 0, max: 3 }).map((n) => n === 0) : fc.constant(false),
      }),
    },
    {
      weight: 5,
      arbitrary: fc.record({
        t: fc.constant('submit' as const),
        pr,
        priority: fc.constantFrom(undefined, 'urgent', 'high', 'low', 42, 'medium'),
        noBatch: fc.boolean(),
        ready: fc.boolean(),
        targets,
      }),
    },
    { weight: 1, arbitrary: fc.record({ t: fc.constant('observe' as const), pr }) },
    { weight: rare, arbitrary: fc.record({ t: fc.constant('cancel' as const), pr }) },
    { weight: rare, arbitrary: fc.record({ t: fc.constant('restart' as const), pr }) },
    { weight: rare, arbitrary: fc.record({ t: fc.constant('pushPr' as const), pr }) },
    { weight: rare, arbitrary: fc.constant({ t: 'pushTarget' as const }) },
    { weight: rare, arbitrary: fc.record({ t: fc.constant('mergeOutside' as const), pr }) },
    {
      weight: 1,
      arbitrary: fc.record({
        t: fc.constant('state' as const),
        state: fc.constantFrom('RUNNING' as const, 'PAUSED' as const, 'DRAINING' as const),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        t: fc.constant('config' as const),
        patch: opts.modeSwitch
          ? fc
              .tuple(configPatch, fc.constantFrom('single' as const, 'parallel' as const))
              .map(([p, mode]) => ({ ...p, mode }))
          : configPatch,
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ t: fc.constant('time' as const), ms: fc.integer({ min: 1, max: 20 * 60_000 }) }),
    },
  );
  const list = fc.array(action, { minLength: 5, maxLength: 120 });
  if (!opts.batching) return list;
  // Every PR ready at once first, so that full batches form, fail and bisect while more events come.
  const all: Action[] = Array.from({ length: PRS }, (_, i) => ({
    t: 'submit',
    pr: i + 1,
    priority: undefined,
    noBatch: false,
    ready: true,
    targets: ['a'],
  }));
  return list.map((rest) => [...all, ...rest]);
}

function play(h: Harness, list: Action[], targetsOf: Map<number, ImpactedTargets>): void {
  for (const a of list) {
    switch (a.t) {
      case 'deliver':
        h.deliver(a.i, a.flake);
        break;
      case 'submit':
        h.submit(a.pr, { priority: a.priority, noBatch: a.noBatch, ready: a.ready });
        targetsOf.set(a.pr, a.targets);
        if (h.snapshot.config.mode === 'parallel' || a.pr % 2 === 0) h.uploadTargets(a.pr, a.targets);
        break;
      case 'observe':
        h.observe(a.pr);
        break;
      case 'cancel':
        h.send({ kind: 'cancel', at: h.now, prNumber: a.pr, reason: 'API_REQUESTED' });
        break;
      case 'restart':
        h.send({ kind: 'restart', at: h.now, prNumber: a.pr, reason: 'TESTS_RESTARTED_BY_API_REQUEST' });
        break;
      case 'pushPr':
        h.pushPr(a.pr);
        break;
      case 'pushTarget':
        h.pushTarget();
        break;
      case 'mergeOutside':
        h.mergeOutside(a.pr);
        break;
      case 'state':
        h.send({ kind: 'setState', at: h.now, state: a.state });
        break;
      case 'config':
        h.send({ kind: 'updateConfig', at: h.now, patch: a.patch });
        break;
      case 'time':
        h.now += a.ms;
        h.send({ kind: 'tick', at: h.now });
        break;
    }
  }
}

const ALLOWED_REJECTIONS = new Set([
  'cancel:PR_NOT_IN_QUEUE',
  'cancel:PR_BEING_MERGED',
  'restart:PR_NOT_IN_QUEUE',
  'restart:RESTART_NOT_ALLOWED',
  'prObserved:PR_NOT_IN_QUEUE',
  'prMergedOutside:PR_NOT_IN_QUEUE',
  'impactedTargets:PR_NOT_IN_QUEUE',
  'impactedTargets:INVALID_EVENT', // targets for a new head while the old one is being merged
  'testBranchCreated:STALE_RUN_EVENT',
  'testBranchCreated:RUN_NOT_FOUND',
  'testBranchFailed:STALE_RUN_EVENT',
  'testBranchFailed:RUN_NOT_FOUND',
  'ciResult:STALE_RUN_EVENT',
  'setState:SWITCHING_MODES',
]);

/** Failures that do not come from a PR's own code: timeouts of the random clock, pushes while merging. */
const NOT_CODE = new Set([
  'TEST_RUN_TIMEOUT',
  'PR_UPDATED_AT_MERGE_TIME',
  'START_TEST_RUN_MERGE_CONFLICT',
  'MERGE_REFUSED',
]);

/**
 * Batches that fail and bisect: batching on from the start, batches of 2–4, bisection runs 1–4 at
 * once, at least one bad PR, every PR submitted ready before the random events.
 */
const batchingPatch: fc.Arbitrary<Partial<QueueConfig>> = fc
  .tuple(
    configPatch,
    fc.record({
      batchingMinSize: fc.integer({ min: 2, max: 4 }),
      bisectionConcurrency: fc.integer({ min: 1, max: 4 }),
    }),
  )
  .map(([p, b]) => ({ ...p, ...b, batch: true }));

/** What the retry scenarios exercised, summed over their runs. */
const seen = { retries: 0, flakyPasses: 0, quarantined: 0 };

/**
 * Quarantine on top of retries: automatic mode with a low bar, and perhaps `lint` (the flaky status)
 * or both statuses quarantined by the setting (then both gate: at least one status keeps gating).
 */
const withQuarantine = (patch: fc.Arbitrary<Partial<QueueConfig>>): fc.Arbitrary<Partial<QueueConfig>> =>
  fc
    .tuple(
      withRetries(patch),
      fc.constantFrom('off' as const, 'on' as const, 'on' as const),
      fc.constantFrom(0.05, 0.2, 0.5),
      fc.integer({ min: 1, max: 4 }),
      fc.constantFrom([], ['lint'], ['build', 'lint']),
    )
    .map(([p, autoQuarantine, autoQuarantineThreshold, autoQuarantineMinResults, quarantinedStatuses]) => ({
      ...p,
      autoQuarantine,
      autoQuarantineThreshold,
      autoQuarantineMinResults,
      quarantinedStatuses: [...quarantinedStatuses],
    }));

/** Retries of CI that fails or is cancelled: 0 to 2, on top of the other settings. */
const withRetries = (patch: fc.Arbitrary<Partial<QueueConfig>>): fc.Arbitrary<Partial<QueueConfig>> =>
  fc.tuple(patch, fc.integer({ min: 0, max: 2 })).map(([p, ciRetries]) => ({ ...p, ciRetries }));

function scenario(opts: {
  mode: 'single' | 'parallel';
  flakes: boolean;
  modeSwitch?: boolean;
  chaos?: boolean;
  batching?: boolean;
  /** CI flakes are failures or cancellations, and the queue retries them (`ciRetries`). */
  retries?: boolean;
  /** CI names its statuses (a bad PR fails `build`, flakes fail `lint`) and the queue quarantines. */
  quarantine?: boolean;
}) {
  const base = opts.batching ? batchingPatch : configPatch;
  const patch = opts.quarantine ? withQuarantine(base) : base;
  return fc.property(
    actions({
      flakes: opts.flakes,
      modeSwitch: opts.modeSwitch ?? false,
      chaos: opts.chaos ?? true,
      batching: opts.batching,
    }),
    opts.retries ? withRetries(patch) : patch,
    fc.subarray([1, 2, 3, 4, 5, 6, 7, 8], { minLength: opts.batching ? 1 : 0, maxLength: 3 }),
    fc.array(fc.nat(), { minLength: 1, maxLength: 20 }),
    (list, config, badList, picks) => {
      const bad = new Set(badList);
      const h = new Harness(
        { ...config, mode: opts.mode, testingTimeoutMinutes: 60, batchingMaxWaitTimeMinutes: 5 },
        bad,
        opts.retries ?? false,
        opts.quarantine ?? false,
      );
      const targetsOf = new Map<number, ImpactedTargets>();
      play(h, list, targetsOf);
      const drained = h.drain((n) => targetsOf.get(n) ?? ['t'], picks);
      seen.retries += h.ciRetries;
      seen.flakyPasses += h.flakyPasses;
      seen.quarantined += h.quarantinedDecisions;
      const unexpected = h.rejections.filter((r) => !ALLOWED_REJECTIONS.has(r));
      expect(h.violations).toEqual([]);
      expect(unexpected).toEqual([]);
      expect(
        drained,
        `stuck: ${JSON.stringify(h.snapshot.entries.map((e) => [e.prNumber, e.state, e.lastReason]))} state=${h.snapshot.state}`,
      ).toBe(true);
      if (!opts.flakes) {
        for (const e of h.snapshot.entries) {
          if (e.state === 'FAILED' && !bad.has(e.prNumber) && !NOT_CODE.has(e.lastReason)) {
            throw new Error(`good PR ${e.prNumber} FAILED (${e.lastReason}): ${JSON.stringify(e.timeline)}`);
          }
        }
      }
    },
  );
}

/** More runs for a deeper search: ENGINE_PROPERTY_RUNS=5000 npx vitest run test/engine/properties.test.ts */
const runs = { numRuns: Number(process.env.ENGINE_PROPERTY_RUNS ?? 200) };

// Some scenarios take 10–15 s alone (200 random queues each); a loaded machine may take twice that.
describe('engine properties', { timeout: 120_000 }, () => {
  it('single mode, deterministic CI, no outside interference', () =>
    fc.assert(scenario({ mode: 'single', flakes: false, chaos: false }), runs));
  it('parallel mode, flaky CI, no outside interference', () =>
    fc.assert(scenario({ mode: 'parallel', flakes: true, chaos: false }), runs));
  it('single mode, deterministic CI', () => fc.assert(scenario({ mode: 'single', flakes: false }), runs));
  it('single mode, flaky CI', () => fc.assert(scenario({ mode: 'single', flakes: true }), runs));
  it('parallel mode, deterministic CI', () => fc.assert(scenario({ mode: 'parallel', flakes: false }), runs));
  it('parallel mode, flaky CI', () => fc.assert(scenario({ mode: 'parallel', flakes: true }), runs));
  it('mode switches while PRs are queued', () =>
    fc.assert(scenario({ mode: 'single', flakes: false, modeSwitch: true }), runs));
  it('single mode, batches that bisect, deterministic CI', () =>
    fc.assert(scenario({ mode: 'single', flakes: false, chaos: false, batching: true }), runs));
  it('single mode, batches that bisect, flaky CI', () =>
    fc.assert(scenario({ mode: 'single', flakes: true, batching: true }), runs));
  it('parallel mode, batches that bisect, deterministic CI', () =>
    fc.assert(scenario({ mode: 'parallel', flakes: false, batching: true }), runs));
  it('single mode, flaky and cancelling CI, retries', () =>
    fc.assert(scenario({ mode: 'single', flakes: true, retries: true }), runs));
  it('parallel mode, flaky and cancelling CI, retries', () =>
    fc.assert(scenario({ mode: 'parallel', flakes: true, retries: true }), runs));
  it('single mode, batches that bisect, flaky and cancelling CI, retries', () =>
    fc.assert(scenario({ mode: 'single', flakes: true, batching: true, retries: true }), runs));
  it('single mode, named statuses, flaky CI, retries and quarantine', () =>
    fc.assert(scenario({ mode: 'single', flakes: true, retries: true, quarantine: true }), runs));
  it('single mode, batches that bisect, named statuses, flaky CI, retries and quarantine', () =>
    fc.assert(scenario({ mode: 'single', flakes: true, batching: true, retries: true, quarantine: true }), runs));
  it('parallel mode, named statuses, flaky CI, retries and quarantine', () =>
    fc.assert(scenario({ mode: 'parallel', flakes: true, retries: true, quarantine: true }), runs));
  it('the quarantine scenarios did quarantine a status', () => {
    const before = seen.quarantined;
    fc.assert(scenario({ mode: 'single', flakes: true, retries: true, quarantine: true }), { numRuns: 100, seed: 7 });
    expect(seen.quarantined - before).toBeGreaterThan(0);
  });
  it('the retry scenarios did retry CI and saw runs pass after a retry', () => {
    const before = { ...seen };
    fc.assert(scenario({ mode: 'single', flakes: true, retries: true }), { numRuns: 300, seed: 21 });
    expect(seen.retries - before.retries).toBeGreaterThan(0);
    expect(seen.flakyPasses - before.flakyPasses).toBeGreaterThan(0);
  });
});

/** Counterexamples the properties once found, kept as fixed cases (fast-check `examples`). */
describe('engine properties: counterexamples found before', () => {
  const ready = (pr: number, targets: string[]) => ({
    t: 'submit',
    pr,
    priority: undefined,
    noBatch: false,
    ready: true,
    targets,
  });
  const eight = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => ready(n, ['a']));
  const once = (example: unknown[]) => ({ examples: [example as never], numRuns: 1 });

  it('a PR cancelled from a bisection part inferred to fail: the rest of the part is tested, not blamed', () =>
    fc.assert(
      scenario({ mode: 'parallel', flakes: false, batching: true }),
      once([
        [
          ...eight,
          { t: 'deliver', i: 166471, flake: false },
          { ...ready(1, ['a', 'b']), ready: false },
          { t: 'deliver', i: 1171, flake: false },
          { t: 'cancel', pr: 3 },
          { t: 'deliver', i: 0, flake: false },
          { t: 'deliver', i: 0, flake: false },
        ],
        {
          optimizationMode: 'bisection_skip_redundant_tests',
          batchingMinSize: 4,
          bisectionConcurrency: 1,
          batch: true,
        },
        [3, 8],
        [0],
      ]),
    ));

  it('failed groups whose runs were built on each other (one now behind the other) do not wait on each other forever', () =>
    fc.assert(
      scenario({ mode: 'single', flakes: false, chaos: false, batching: true }),
      once([
        [
          ...eight,
          { t: 'deliver', i: 201326588, flake: false },
          { t: 'deliver', i: 29, flake: false },
          { t: 'deliver', i: 11, flake: false },
          { t: 'config', patch: { concurrency: 1 } },
          { t: 'time', ms: 1 },
          { t: 'config', patch: { canOptimisticallyMerge: true } },
          { t: 'deliver', i: 0, flake: false },
          { ...ready(4, ['d']), priority: 'urgent', ready: false },
          { t: 'observe', pr: 1 },
        ],
        {
          concurrency: 4,
          pendingFailureDepth: 1,
          adaptiveMode: 'on',
          batchingMinSize: 2,
          bisectionConcurrency: 1,
          batch: true,
        },
        [3, 6, 8],
        [0],
      ]),
    ));

  it('a run dropped in the decision that created it (a failure settled after it was formed) is withdrawn, not built', () =>
    fc.assert(
      scenario({ mode: 'parallel', flakes: false, batching: true }),
      once([
        [
          ...eight,
          { t: 'config', patch: { batch: false } },
          { t: 'cancel', pr: 2 },
          { ...ready(6, []), targets: 'ALL', ready: false },
          { t: 'deliver', i: 1610996238, flake: false },
          { t: 'deliver', i: 430897708, flake: false },
          { t: 'deliver', i: 221999679, flake: false },
          { t: 'restart', pr: 1 },
          { t: 'deliver', i: 217891074, flake: false },
          { ...ready(1, ['c']), ready: false },
          { t: 'restart', pr: 1 },
          { t: 'config', patch: { concurrency: 1 } },
        ],
        { concurrency: 4, batchingMinSize: 4, bisectionConcurrency: 1, batch: true },
        [4, 6],
        [0],
      ]),
    ));
});
