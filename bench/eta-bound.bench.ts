/**
 * How good can an estimated merge time be at all (`npm run bench:eta-bound`)? bench:queue measures
 * the error of greenline's estimate; this measures what no estimate can beat, on the same workload
 * (scenarios 1 and 2 of bench:queue at 80% load, seed 1; `npm run bench:eta-bound -- 2` runs one).
 *
 * At the moment a PR is submitted, the queue does not know which of the PRs in it are bad: it knows
 * what its finished runs said (posterior.ts). The PR's future is drawn from that knowledge, FUTURES
 * times, by the engine itself: the simulation is forked as it stands (queue, runs under way, agenda),
 * the PRs' badness is drawn from its posterior, the PRs still to come arrive anew, and each fork runs
 * until the PR merges. The PR is taken to be good (only merged PRs are measured). That is its future
 * as well as anyone can know it: a perfect model of the engine, knowing the true failure rate.
 *
 * An estimate is within τ when its absolute error is at most τ of the PR's time in queue (bench:queue's
 * measure). A goal "error p50 ≤ τ" asks half of the PRs within τ, "p90 ≤ τ" nine in ten. For each PR,
 * the estimate within τ of the most futures gets it within τ with probability c(τ); averaged over the
 * PRs, c(τ) bounds the share of PRs any estimate gets within τ. A scenario's two goals must hold for
 * the same estimates: the estimates that maximise λ·c(τ₁) + c(τ₂) for λ from 0 to ∞ trace what can be
 * had of both at once. (Each maximum is taken over the same futures it is scored on, which overstates
 * what an estimate gets; the bounds are generous.) Also printed: the real error of estimates taken
 * from the futures by a few rules, greenline's (the median weighted by 1 / time in queue) among them.
 */
import { relativeMedian } from '../src/engine/eta-sampling.js';
import type { QueueConfig } from '../src/engine/index.js';
import { percentile } from '../src/lib/percentile.js';
import { MINUTE_MS } from '../src/lib/time.js';
import { Prng } from '../src/sim/prng.js';
import { Simulation, simulate } from '../src/sim/simulator.js';
import { RunKnowledge } from './posterior.js';
import { loadRate, SEED, scenarioOptions, T } from './scenarios.js';

/** PRs submitted in the run that is probed (the measurement starts after a warm-up of 2T). */
const PROBED_RUN_PRS = 1500;
/** Every how many submitted PRs one is probed. */
const EVERY = 5;
/** Futures drawn per probed PR. */
const FUTURES = 40;
const FAILURE_RATE = 0.05;

interface Goal {
  /** The error's percentile the goal is on (50, 90), and its bound τ. */
  p: number;
  tau: number;
}

interface Scenario {
  name: string;
  queue: Partial<QueueConfig>;
  goals: [Goal, Goal];
}

const SCENARIOS: Scenario[] = [
  {
    name: '1. p=5% N=10, no batching',
    queue: { concurrency: 10 },
    goals: [
      { p: 50, tau: 0.2 },
      { p: 90, tau: 0.3 },
    ],
  },
  {
    name: '2. p=5% N=10, B=4, bisection',
    queue: { concurrency: 10, batch: true, batchingMinSize: 4 },
    goals: [
      { p: 50, tau: 0.15 },
      { p: 90, tau: 0.45 },
    ],
  },
];

/** A probed PR: its time in queue in each drawn future and in the real one, minutes. */
interface Probe {
  futures: number[];
  actual: number;
}

const within = (estimate: number, wait: number, tau: number): boolean => Math.abs(estimate - wait) <= tau * wait + 1e-9;
const shareWithin = (futures: readonly number[], estimate: number, tau: number): number =>
  futures.filter((f) => within(estimate, f, tau)).length / futures.length;

/** The estimate maximising score(estimate) over the points where a share within τ can change. */
function bestBy(futures: readonly number[], taus: readonly number[], score: (e: number) => number): number {
  let best = futures[0];
  let top = -1;
  for (const f of futures) {
    for (const tau of taus) {
      for (const e of [f * (1 - tau), f * (1 + tau)]) {
        const s = score(e);
        if (s > top) [best, top] = [e, s];
      }
    }
  }
  return best;
}

const sortedMs = (minutes: readonly number[]): number[] => minutes.map((m) => m * MINUTE_MS).sort((a, b) => a - b);

const RULES: [string, (futures: readonly number[]) => number][] = [
  ['median', (f) => [...f].sort((a, b) => a - b)[Math.floor(f.length / 2)]],
  // greenline's rule, the engine's own code: the median weighted by 1 / time in queue (futures in minutes, from now).
  ['median weighted by 1/time (greenline)', (f) => relativeMedian(sortedMs(f), 0) / MINUTE_MS],
  ...[0.15, 0.2, 0.3, 0.45].map((tau): [string, (f: readonly number[]) => number] => [
    `most futures within ${tau * 100}%`,
    (f) => bestBy(f, [tau], (e) => shareWithin(f, e, tau)),
  ]),
];

/** Drawn futures and the real outcome of every EVERY-th good PR submitted after the warm-up. */
function probe(queue: Partial<QueueConfig>): { rate: number; probes: Probe[] } {
  const capacity = simulate(scenarioOptions(queue, { measureEta: false })).summary.mergesPerHour;
  const rate = loadRate(capacity);
  const sim = Simulation.start(
    scenarioOptions(queue, { arrivals: { kind: 'poisson', perHour: rate }, maxPrs: PROBED_RUN_PRS, measureEta: false }),
  );
  const warmupEnd = sim.time + 2 * T * MINUTE_MS;
  const knowledge = new RunKnowledge(FAILURE_RATE);
  const pending = new Map<number, { submittedAt: number; futures: number[] }>();
  const probes: Probe[] = [];
  let reported = 0;

  const drawFutures = (n: number): number[] => {
    const truth = (m: number): boolean => sim.isBad(m);
    const draws = knowledge.draws(sim.queuedPrs(), n, truth, Prng.derive(SEED, `posterior-${n}`), FUTURES);
    return draws.map(({ unknown, bad }, k) => {
      const fork = sim.fork(1_000_000 + n * FUTURES + k, (m) =>
        m === n ? false : unknown.has(m) ? bad.has(m) : knowledge.good.has(m) ? false : truth(m),
      );
      if (!fork.advanceUntil(() => !fork.queued(n))) throw new Error(`PR ${n} never left the queue in a fork`);
      return (fork.time - sim.time) / MINUTE_MS;
    });
  };

  sim.run({
    ciFinished: (included, outcome) => knowledge.ciFinished(included, outcome),
    settled: (submitted) => {
      for (const [n, p] of pending) {
        if (sim.queued(n)) continue;
        probes.push({ futures: p.futures, actual: (sim.time - p.submittedAt) / MINUTE_MS });
        pending.delete(n);
      }
      for (const n of submitted) {
        if (n % EVERY !== 0 || sim.time < warmupEnd || sim.isBad(n)) continue;
        pending.set(n, { submittedAt: sim.time, futures: drawFutures(n) });
        if (n >= reported + PROBED_RUN_PRS / 10) {
          reported = n;
          process.stderr.write(`  … PR ${n} of ${PROBED_RUN_PRS}\n`);
        }
      }
    },
  });
  return { rate, probes };
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;
const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

function report(s: Scenario, probes: readonly Probe[]): void {
  for (const [rule, estimate] of RULES) {
    const errors = probes.map((p) => Math.abs(estimate(p.futures) - p.actual) / p.actual).sort((a, b) => a - b);
    console.log(
      `  estimate = ${rule} of the futures: error p50 ${pct(percentile(errors, 50)!)}, p90 ${pct(percentile(errors, 90)!)}`,
    );
  }
  const [g1, g2] = s.goals;
  const need = (g: Goal): number => g.p / 100;
  const goalText = (g: Goal): string => `error p${g.p} ≤ ${pct(g.tau)} (${pct(need(g))} of PRs within ${pct(g.tau)})`;
  // Each λ: per PR the estimate maximising λ·c(τ₁) + c(τ₂); what it gives, in expectation and in fact.
  const frontier = [0, 0.1, 0.2, 0.35, 0.5, 0.7, 1, 1.4, 2, 3, 5, 10, Infinity].map((lambda) => {
    const picks = probes.map((p) => {
      const score = (e: number): number =>
        lambda === Infinity
          ? shareWithin(p.futures, e, g1.tau) + 1e-6 * shareWithin(p.futures, e, g2.tau)
          : lambda * shareWithin(p.futures, e, g1.tau) + shareWithin(p.futures, e, g2.tau);
      const e = bestBy(p.futures, [g1.tau, g2.tau], score);
      return { p, e };
    });
    return {
      lambda,
      c1: mean(picks.map(({ p, e }) => shareWithin(p.futures, e, g1.tau))),
      c2: mean(picks.map(({ p, e }) => shareWithin(p.futures, e, g2.tau))),
      r1: mean(picks.map(({ p, e }) => (within(e, p.actual, g1.tau) ? 1 : 0))),
      r2: mean(picks.map(({ p, e }) => (within(e, p.actual, g2.tau) ? 1 : 0))),
    };
  });
  const c1max = Math.max(...frontier.map((f) => f.c1));
  const c2max = Math.max(...frontier.map((f) => f.c2));
  console.log(
    `  goal ${goalText(g1)}: any estimate at most ${pct(c1max)} — ${c1max >= need(g1) ? 'reachable' : 'OUT OF REACH'}`,
  );
  console.log(
    `  goal ${goalText(g2)}: any estimate at most ${pct(c2max)} — ${c2max >= need(g2) ? 'reachable' : 'OUT OF REACH'}`,
  );
  console.log(
    `  both at once (λ: weight of the first goal; expected shares within, then the shares the estimates got):`,
  );
  for (const f of frontier) {
    console.log(
      `    λ ${String(f.lambda).padStart(4)}: ${pct(f.c1)} within ${pct(g1.tau)} and ${pct(f.c2)} within ${pct(g2.tau)} (got ${pct(f.r1)}, ${pct(f.r2)})`,
    );
  }
  // Mixing two λs over the PRs reaches the segment between their points: check the hull as well.
  const byC1 = [...frontier].sort((a, b) => a.c1 - b.c1);
  const both =
    frontier.some((f) => f.c1 >= need(g1) && f.c2 >= need(g2)) ||
    byC1.slice(1).some((b, i) => {
      const a = byC1[i];
      if (a.c1 > need(g1) || b.c1 < need(g1) || b.c1 === a.c1) return false;
      return a.c2 + ((need(g1) - a.c1) / (b.c1 - a.c1)) * (b.c2 - a.c2) >= need(g2);
    });
  console.log(`  both goals together: ${both ? 'reachable' : 'OUT OF REACH'} for any estimate`);
}

const only = process.argv.slice(2).map(Number);
console.log(
  `eta-bound: T = ${T} min fixed, seed ${SEED}, ${PROBED_RUN_PRS} PRs at 80% load, every ${EVERY}th good PR probed with ${FUTURES} futures`,
);
for (const s of SCENARIOS) {
  if (only.length > 0 && !only.includes(Number.parseInt(s.name, 10))) continue;
  const started = performance.now();
  const { rate, probes } = probe(s.queue);
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  console.log(`\n${s.name}, at ${rate} PRs/h: ${probes.length} PRs probed in ${seconds} s`);
  report(s, probes);
}
