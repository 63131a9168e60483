/**
 * `greenline simulate`: as a real process (JSON figures, the chart, exit code and message of a usage
 * error), and in-process for the report and every flag check (a process start costs seconds).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { simulateCommand } from '../../src/cli/simulate.js';
import { runCli } from '../cli/run-cli.js';
import { makeTempDirSync, removeTempDir } from '../helpers/temp-dir.js';

/** Runs the command in this process; returns what it printed. */
async function simulateHere(args: string[]): Promise<string> {
  const out: string[] = [];
  const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    out.push(String(chunk));
    return true;
  });
  try {
    await simulateCommand().exitOverride().parseAsync(args, { from: 'user' });
  } finally {
    write.mockRestore();
  }
  return out.join('');
}

let dir: string;
beforeAll(() => {
  dir = makeTempDirSync('greenline-sim-');
});
afterAll(() => removeTempDir(dir));

describe('greenline simulate', () => {
  it('prints figures as JSON and writes the chart', async () => {
    const svg = join(dir, 'chart.svg');
    const r = await runCli([
      'simulate',
      '--saturate',
      '--concurrency',
      '3',
      '--prs',
      '120',
      '--failure-rate',
      '5%',
      '--seed',
      '4',
      '--json',
      '--svg',
      svg,
      '--no-eta',
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as {
      options: { queue: { concurrency: number }; failureRate: number; measureEta: boolean };
      summary: Record<string, unknown>;
    };
    expect(out.options.queue.concurrency).toBe(3);
    expect(out.options.failureRate).toBe(0.05);
    expect(out.options.measureEta).toBe(false);
    expect(out.summary.eta).toBeNull();
    expect(out.summary).toMatchObject({ seed: 4, prs: { arrived: 120, mergedBad: 0 }, invariantBreaches: 0 });
    expect(out.summary.mergesPerHour).toBeGreaterThan(0);
    expect(readFileSync(svg, 'utf8')).toMatch(/^<svg[\s\S]*<\/svg>\n$/);
  });

  it('prints a readable report and replays a CSV history', async () => {
    const csv = join(dir, 'history.csv');
    writeFileSync(
      csv,
      'arrival,ci_minutes,outcome\n2024-05-06T09:00:00Z,20,pass\n2024-05-06T09:05:00Z,25,fail\n2024-05-06T09:10:00Z,20,pass\n',
    );
    const stdout = await simulateHere(['--replay', csv, '--concurrency', '2']);
    expect(stdout).toMatch(/^workload +replay of 3 PRs/m);
    expect(stdout).toMatch(/^queue +single · concurrency 2 · no batching/m);
    expect(stdout).toMatch(/^merges per hour +\d/m);
    expect(stdout).toMatch(/^time in queue +p50 [\d.]+ min · p95/m);
    expect(stdout).toMatch(/^estimate error +(p50 [\d.]+% · p90|n\/a \(nothing estimated\))/m);
    expect(stdout).toMatch(/3 arrived · 2 merged · 1 bad ones failed/);
    const unmeasured = await simulateHere(['--replay', csv, '--concurrency', '2', '--no-eta']);
    expect(unmeasured).toMatch(/^estimate error +not measured \(--no-eta\)$/m);
  });

  it('--adaptive runs adaptive mode and reports where its window and batch size ended', async () => {
    const stdout = await simulateHere([
      '--saturate',
      '--adaptive-min-concurrency',
      '3',
      '--concurrency',
      '6',
      '--batch-size',
      '8',
      '--prs',
      '150',
      '--seed',
      '2',
      '--no-eta',
    ]);
    expect(stdout).toMatch(
      /^queue +single · adaptive concurrency 3–6 · batches of up to 8 \(sized from the failure rate, bisection concurrency 6\)/m,
    );
    expect(stdout).toMatch(
      /^adaptive mode +window [3-6] · batch size [1-8] · measured failure rate [\d.]+% \(at the end\)$/m,
    );
    expect(await simulateHere(['--saturate', '--concurrency', '6', '--prs', '50', '--no-eta'])).not.toMatch(/adaptive/);
  });

  it('--ci-retries tests failed runs again: flaky failures stop rejecting good PRs, no bad PR merges', async () => {
    const args = [
      '--saturate',
      '--concurrency',
      '4',
      '--flake-rate',
      '10%',
      '--prs',
      '300',
      '--seed',
      '4',
      '--json',
      '--no-eta',
    ];
    const without = JSON.parse(await simulateHere(args)).summary;
    const withRetries = JSON.parse(await simulateHere([...args, '--ci-retries', '2'])).summary;
    expect(without.prs.failedGood).toBeGreaterThan(5);
    expect(withRetries.prs.failedGood).toBeLessThan(without.prs.failedGood / 4);
    expect(withRetries.prs.mergedBad).toBe(0);
    expect(withRetries.invariantBreaches).toBe(0);
    // Decided by the evidence of the runs behind, a retry does not hold the queue up: more merges.
    expect(withRetries.mergesPerHour).toBeGreaterThan(without.mergesPerHour);
    expect(
      await simulateHere(['--saturate', '--concurrency', '4', '--prs', '20', '--ci-retries', '1', '--no-eta']),
    ).toMatch(/^queue +single · concurrency 4 · no batching · PFD 0 · optimistic merge off · CI retries 1$/m);
  });

  it('a malformed replay file is a usage error naming the line', async () => {
    const csv = join(dir, 'broken.csv');
    writeFileSync(csv, 'arrival,ci_minutes,outcome\n0,30,pass\n5,abc,pass\n');
    const r = await runCli(['simulate', '--replay', csv]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`error: ${csv} line 3: ci_minutes must be a number of minutes > 0, got "abc"\n`);
  });

  it('bad flags are usage errors that say what is wrong', async () => {
    const cases: [string[], RegExp][] = [
      [['--rate', 'many'], /--rate must be a number, got "many"/],
      [['--concurrency', '0'], /--concurrency: concurrency must be an integer from 1 to 1000/],
      [['--rate', '5', '--saturate'], /choose one way PRs arrive/],
      [['--replay', join(dir, 'missing.csv')], /cannot read --replay file .*missing\.csv: ENOENT/],
      [['--lanes', '2', '--mode', 'single'], /--lanes above 1 needs --mode parallel/],
      [['--ci-jitter', '5', '--ci-sigma', '0.3'], /choose one of --ci-jitter and --ci-sigma/],
      [['--replay', 'x.csv', '--failure-rate', '0.1'], /--failure-rate does not apply to --replay/],
      [['--failure-rate', '150%'], /--failure-rate must be a probability between 0 and 1, got 1.5/],
      [['--batch-size', '2.5'], /--batch-size must be a whole number, got "2.5"/],
      [['--ci-retries', '6'], /--ci-retries: ciRetries must be an integer from 0 to 5, got 6/],
      [
        ['--adaptive-min-concurrency', '0'],
        /--adaptive-min-concurrency: adaptiveMinConcurrency must be an integer from 1 to 1000, got 0/,
      ],
    ];
    for (const [args, message] of cases) {
      await expect(simulateHere(args), args.join(' ')).rejects.toThrow(
        expect.objectContaining({ name: 'UsageError', message: expect.stringMatching(message) }),
      );
    }
  });
});
