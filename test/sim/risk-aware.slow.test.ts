/**
 * Risk-aware batching end to end (the real engine in the simulator): on uneven risk, a queue that
 * tests risky authors' PRs first merges more on the same PRs, merges no bad PR and rejects no good one.
 */
import { describe, expect, it } from 'vitest';
import { defaultOptions, type RiskModel } from '../../src/sim/options.js';
import { simulate } from '../../src/sim/simulator.js';

const run = (risk: RiskModel, riskAwareBatching: 'on' | 'off') =>
  simulate({
    ...defaultOptions(),
    seed: 3,
    risk,
    maxPrs: 600,
    arrivals: { kind: 'saturated', backlog: 60 },
    measureEta: false,
    queue: { concurrency: 10, batch: true, batchingMinSize: 4, riskAwareBatching },
  }).summary;

describe('risk-aware batching in the simulator', () => {
  it('on uneven risk merges more per hour than the same queue with it off, on the same PRs, and stays safe', () => {
    const off = run('uneven', 'off');
    const on = run('uneven', 'on');
    expect(on.prs).toMatchObject({ arrived: off.prs.arrived, mergedBad: 0, failedGood: 0, left: 0 });
    expect(on.invariantBreaches).toBe(0);
    expect(on.mergesPerHour).toBeGreaterThan(off.mergesPerHour);
  });

  it('with authors that tell the truth, spends far fewer CI runs per merge than with it off', () => {
    const off = run('truth', 'off');
    const on = run('truth', 'on');
    expect(on.prs.mergedBad).toBe(0);
    expect(on.ciRunsPerMerge).toBeLessThan(0.75 * off.ciRunsPerMerge);
  });

  it('changes nothing on uniform risk: one author, nobody stands out', () => {
    const uniform = (riskAwareBatching: 'on' | 'off') => ({ ...run('uniform', riskAwareBatching), wallMs: 0 });
    expect(uniform('on')).toEqual(uniform('off'));
  });
});
