/**
 * The simulator: the real queue engine (`decide`) driven by a virtual clock, a simulated forge and a simulated
 * CI. Nothing waits on wall time; a 10,000-PR run takes seconds.
 *
 * Each step takes the earliest item of the agenda (a PR arriving, a CI run finishing, a wakeup the
 * engine asked for), turns it into an engine event, and carries out the effects of the decision:
 * - createTestBranch → the simulated forge builds it at once → `testBranchCreated`;
 * - startCi, retryCi → the simulated CI decides the outcome and duration now → `ciResult` after the duration;
 * - cancelCi → the run's result is dropped (its CI time up to now still counts);
 * - merge → compare-and-swap on the simulated forge at once → `merged`;
 * - scheduleWakeup → a `tick` at that time; deleteTestBranch → forge; emitEvent → nothing.
 * Answers the forge gives at once are decided before the next agenda item. Terminal entries and
 * the runs nobody needs are pruned after every decision, as the service does (snapshot-io.ts).
 */
import {
  adaptiveStatus,
  decide,
  newQueueSnapshot,
  type Effect,
  type Entry,
  type EngineEvent,
  type QueueSnapshot,
  type TestRun,
} from '../engine/index.js';
import { MINUTE_MS } from '../lib/time.js';
import { arrivalEvents } from './arrival.js';
import { EventHeap } from './event-heap.js';
import { SubmissionEstimates } from './estimates.js';
import { pruneSnapshot } from './prune.js';
import { SimulatedCi, type SimulatedPr } from './simulated-ci.js';
import { SimulatedForge } from './simulated-forge.js';
import { MetricsCollector, type Series, type SimulationSummary } from './metrics.js';
import { validateOptions, type SimulationOptions } from './options.js';
import { Prng } from './prng.js';
import { Workload } from './workload.js';

export interface SimulationResult {
  summary: SimulationSummary;
  series: Series;
}

type AgendaItem =
  | { kind: 'arrival' }
  | { kind: 'ci'; runId: string; outcome: 'success' | 'failure' }
  | { kind: 'wake' };

/** Simulated time starts here (engine times are epoch milliseconds). */
const SIM_EPOCH = Date.UTC(2025, 0, 6, 9);
/** A guard against a queue that never settles: far above what any real run needs per PR. */
const MAX_DECISIONS_PER_PR = 2_000;

export function simulate(options: SimulationOptions): SimulationResult {
  return Simulation.start(options).run();
}

/** What a caller of `run` hears as the simulation goes. */
export interface SimulationObserver {
  /** Every moment, once settled: the PRs submitted in it. */
  settled?(submitted: readonly number[]): void;
  /** A run's CI finished (not one CI retries): every PR in its test commit, and the outcome. */
  ciFinished?(included: readonly number[], outcome: 'success' | 'failure'): void;
}

/**
 * One simulation. Besides `run`, a simulation can be forked at a settled moment (`fork`): the copy
 * carries on from the same queue, runs and agenda with PRs of its own choosing bad, new arrivals of
 * its own and CI verdicts drawn again, which is how bench/eta-bound.bench.ts asks what could happen
 * to a PR from where it stands.
 */
export class Simulation {
  private snapshot: QueueSnapshot;
  private now = SIM_EPOCH;
  private readonly agenda = new EventHeap<AgendaItem>();
  private readonly immediate: EngineEvent[] = [];
  private readonly forge = new SimulatedForge();
  private readonly ci: SimulatedCi;
  private readonly workload: Workload;
  /** Runs on the bisection budget, by id. */
  private readonly bisectionRuns = new Set<string>();
  private readonly metrics = new MetricsCollector(SIM_EPOCH, (id) => this.bisectionRuns.has(id));
  private readonly prs = new Map<number, SimulatedPr>();
  /** Every PR head in each run's test commit, from its createTestBranch. */
  private readonly runContents = new Map<string, number[]>();
  /** Runs with CI under way: when each started and how long it will take. */
  private readonly ciRunning = new Map<string, { startedAt: number; minutes: number; bisection: boolean }>();
  private readonly wakeups = new Set<number>();
  private runIds = 0;
  private readonly ctx = { newId: () => `run-${++this.runIds}` };
  private arrivalsEnd: number | null = null;
  private observer: SimulationObserver = {};
  /** PRs submitted in the moment being handled. */
  private submitted: number[] = [];
  private readonly estimates = new SubmissionEstimates();

  private constructor(
    private readonly o: SimulationOptions,
    ci: SimulatedCi,
    workload: Workload,
  ) {
    this.snapshot = newQueueSnapshot(
      { host: 'sim.local', owner: 'sim', name: 'repo' },
      this.forge.targetBranch,
      o.queue,
    );
    this.ci = ci;
    this.workload = workload;
  }

  /** A new simulation of `options`, with its queue created and the first arrival scheduled. */
  static start(options: SimulationOptions): Simulation {
    const problem = validateOptions(options);
    if (problem) throw new Error(problem);
    const sim = new Simulation(
      options,
      new SimulatedCi(options.ci, options.flakeRate, Prng.derive(options.seed, 'ci')),
      new Workload(options, Prng.derive(options.seed, 'workload'), SIM_EPOCH),
    );
    sim.decide({ kind: 'targetMoved', at: sim.now, sha: sim.forge.targetSha() });
    sim.scheduleArrival();
    sim.settleNow();
    sim.metrics.queueDepth(sim.now, sim.snapshot.entries.length);
    return sim;
  }

  /**
   * A copy of this simulation as it stands (between moments), going on differently: `bad` says which
   * of the PRs submitted so far are bad from now on (the verdicts of the runs under way follow it),
   * and the PRs still to come, their arrival times and new CI verdicts are drawn with `seed`. It
   * measures nothing and estimates nothing.
   */
  fork(seed: number, bad: (prNumber: number) => boolean): Simulation {
    const o = { ...this.o, seed, measureEta: false };
    const ci = new SimulatedCi(o.ci, o.flakeRate, Prng.derive(seed, 'ci'));
    const copy = new Simulation(o, ci, this.workload.fork(Prng.derive(seed, 'workload')));
    copy.snapshot = this.snapshot; // engine snapshots are never changed in place
    copy.now = this.now;
    copy.forge.copyFrom(this.forge);
    for (const [n, pr] of this.prs) copy.prs.set(n, { ...pr, bad: bad(n) });
    for (const [id, prs] of this.runContents) copy.runContents.set(id, prs);
    for (const [id, spend] of this.ciRunning) copy.ciRunning.set(id, spend);
    for (const id of this.bisectionRuns) copy.bisectionRuns.add(id);
    for (const at of this.wakeups) copy.wakeups.add(at);
    copy.runIds = this.runIds;
    copy.arrivalsEnd = this.arrivalsEnd;
    for (const { at, item } of this.agenda.items()) {
      if (item.kind === 'arrival') continue; // drawn again below
      if (item.kind !== 'ci') copy.agenda.push(at, item);
      else {
        const included = (copy.runContents.get(item.runId) ?? []).map((n) => copy.prs.get(n)!);
        copy.agenda.push(at, { ...item, outcome: ci.verdict([], included).outcome });
      }
    }
    if (copy.arrivalsEnd === null) copy.scheduleArrival();
    return copy;
  }

  /** The simulated time, epoch milliseconds. */
  get time(): number {
    return this.now;
  }

  /** Whether the PR is in the queue (submitted, and neither merged nor failed yet). */
  queued(prNumber: number): boolean {
    return this.snapshot.entries.some((e) => e.prNumber === prNumber);
  }

  /** Whether a submitted PR's code is bad: the simulation's truth, which the queue only learns from CI. */
  isBad(prNumber: number): boolean {
    return this.prs.get(prNumber)?.bad ?? false;
  }

  /** The PRs in the queue. */
  queuedPrs(): number[] {
    return this.snapshot.entries.map((e) => e.prNumber);
  }

  /** Goes on until `until` holds after a settled moment, or nothing is left to happen; false then. */
  advanceUntil(until: () => boolean): boolean {
    for (;;) {
      const more = this.step();
      if (until()) return true;
      if (!more) return false;
    }
  }

  run(observer: SimulationObserver = {}): SimulationResult {
    const started = performance.now();
    this.observer = observer;
    while (this.step()) {}
    for (const e of this.snapshot.entries) this.metrics.entryRestarts(e);
    const endMinutes = this.metrics.minutes(this.arrivalsEnd ?? this.now);
    const warmup = Math.min(this.o.warmupMinutes ?? 2 * this.o.ci.minutes, endMinutes / 2);
    return this.metrics.summarize({
      seed: this.o.seed,
      warmupMinutes: warmup,
      windowEnd: endMinutes,
      endedAt: this.now,
      left: this.snapshot.entries.length,
      invariantBreaches: this.forge.invariantBreaches,
      adaptive: adaptiveStatus(this.snapshot),
      wallMs: performance.now() - started,
    });
  }

  /** Handles the next item of the agenda and what follows at once; false when the simulation is over. */
  private step(): boolean {
    const next = this.agenda.pop();
    if (!next) return false;
    this.now = next.at;
    this.submitted = [];
    this.handle(next.item);
    this.settleNow();
    this.metrics.queueDepth(this.now, this.snapshot.entries.length);
    this.observer.settled?.(this.submitted);
    if (this.metrics.decisions > MAX_DECISIONS_PER_PR * (this.metrics.arrived + 10)) {
      throw new Error(
        `the queue did not settle after ${this.metrics.decisions} decisions (${this.snapshot.entries.length} PRs left)`,
      );
    }
    // Arrivals are over and the queue drained: what is left on the agenda are idle wakeups.
    return !(this.arrivalsEnd !== null && this.snapshot.entries.length === 0);
  }

  private handle(item: AgendaItem): void {
    switch (item.kind) {
      case 'arrival':
        this.arrive();
        this.scheduleArrival();
        return;
      case 'ci': {
        const spend = this.ciRunning.get(item.runId);
        if (!spend) return; // cancelled meanwhile
        this.ciRunning.delete(item.runId);
        this.metrics.ciSpent(spend.startedAt, spend.minutes, spend.bisection);
        const run = this.runOf(item.runId);
        const included = this.runContents.get(item.runId) ?? [];
        this.decide({ kind: 'ciResult', at: this.now, runId: item.runId, outcome: item.outcome });
        // A failure that CI retries is not a finished run: the retry decides (a finished run may be pruned).
        if (run && this.runOf(item.runId)?.status !== 'in_progress') {
          this.estimates.runFinished(run, item.outcome, this.now);
          this.observer.ciFinished?.(included, item.outcome);
        }
        return;
      }
      case 'wake':
        this.wakeups.delete(this.now);
        this.decide({ kind: 'tick', at: this.now });
        return;
    }
  }

  /** Events the forge answers at once, and (saturated arrivals) PRs that keep the queue full. */
  private settleNow(): void {
    for (;;) {
      for (let i = 0; i < this.immediate.length; i++) this.decide(this.immediate[i]);
      this.immediate.length = 0;
      if (
        !this.workload.saturated ||
        this.arrivalsEnd !== null ||
        this.snapshot.entries.length >= this.workload.backlog
      )
        return;
      this.arrive();
    }
  }

  private scheduleArrival(): void {
    if (this.workload.saturated) return;
    const at = this.workload.nextArrival(this.now);
    if (at === null) this.arrivalsEnd = this.now;
    else this.agenda.push(at, { kind: 'arrival' });
  }

  private arrive(): void {
    const pr = this.workload.nextPr(this.now);
    if (pr === null) {
      this.arrivalsEnd = this.now;
      return;
    }
    this.prs.set(pr.number, pr);
    this.submitted.push(pr.number);
    this.metrics.arrived++;
    const parallel = this.snapshot.config.mode === 'parallel';
    for (const event of arrivalEvents(pr, this.now, this.forge.targetBranch, parallel)) this.decide(event);
    if (this.o.measureEta) this.estimates.submitted(this.snapshot, pr.number, this.now);
  }

  private decide(event: EngineEvent): void {
    const decision = decide(this.snapshot, event, this.ctx);
    this.metrics.decisions++;
    if (!decision.ok) {
      // A branch built for a run the same moment already dropped (and pruned): the service sees the same answer.
      const dropped = decision.rejection.code === 'STALE_RUN_EVENT' || decision.rejection.code === 'RUN_NOT_FOUND';
      if (dropped && event.kind === 'testBranchCreated') return;
      throw new Error(
        `the engine refused ${event.kind} at ${this.metrics.minutes(event.at).toFixed(1)} min: ${decision.rejection.code} ${decision.rejection.message}`,
      );
    }
    this.snapshot = pruneSnapshot(decision.snapshot, (e) => this.concluded(e));
    for (const effect of decision.effects) this.execute(effect);
  }

  private execute(effect: Effect): void {
    switch (effect.kind) {
      case 'createTestBranch': {
        const sha = this.forge.createTestBranch(effect.branch, effect.baseSha, effect.prs);
        this.runContents.set(
          effect.runId,
          effect.prs.map((p) => p.number),
        );
        if (this.runOf(effect.runId)?.queueType === 'bisection') this.bisectionRuns.add(effect.runId);
        this.immediate.push({ kind: 'testBranchCreated', at: this.now, runId: effect.runId, sha });
        return;
      }
      case 'startCi':
      case 'retryCi': {
        // A retry runs the same test commit again: a new verdict (a flaky failure may pass now).
        const included = (this.runContents.get(effect.runId) ?? effect.prNumbers).map((n) => this.prs.get(n)!);
        const verdict = this.ci.verdict(
          effect.prNumbers.map((n) => this.prs.get(n)!),
          included,
        );
        const bisection = this.bisectionRuns.has(effect.runId);
        this.ciRunning.set(effect.runId, { startedAt: this.now, minutes: verdict.minutes, bisection });
        this.agenda.push(this.now + verdict.minutes * MINUTE_MS, {
          kind: 'ci',
          runId: effect.runId,
          outcome: verdict.outcome,
        });
        return;
      }
      case 'cancelCi': {
        const spend = this.ciRunning.get(effect.runId);
        if (spend) this.metrics.ciSpent(spend.startedAt, (this.now - spend.startedAt) / MINUTE_MS, spend.bisection);
        this.ciRunning.delete(effect.runId);
        return;
      }
      case 'deleteTestBranch':
        this.forge.deleteBranch(effect.branch);
        this.runContents.delete(effect.runId);
        return;
      case 'merge': {
        const result = this.forge.merge(effect.expectedTargetSha, effect.testSha, effect.prs);
        const prNumbers = effect.prs.map((p) => p.number);
        this.immediate.push(
          result.ok
            ? { kind: 'merged', at: this.now, runId: effect.runId, prNumbers, newTargetSha: result.newSha }
            : {
                kind: 'mergeFailed',
                at: this.now,
                runId: effect.runId,
                prNumbers,
                reason: 'TARGET_MOVED',
                detail: result.detail,
                newTargetSha: this.forge.targetSha(),
              },
        );
        return;
      }
      case 'scheduleWakeup': {
        const at = Math.max(effect.at, this.now);
        if (this.wakeups.has(at)) return;
        this.wakeups.add(at);
        this.agenda.push(at, { kind: 'wake' });
        return;
      }
      case 'emitEvent':
        return;
    }
  }

  private runOf(id: string): TestRun | undefined {
    return this.snapshot.runs.find((r) => r.id === id);
  }

  /** A PR that merged or failed, measured with its estimate at submission. */
  private concluded(e: Entry): void {
    const estimate = this.estimates.concluded(e.prNumber);
    this.metrics.entryDone(
      e,
      this.prs.get(e.prNumber)?.bad ?? false,
      estimate?.estimatedMergeAt ?? null,
      estimate?.estimatedMergeRange ?? null,
    );
  }
}
