/**
 * Crash safety of one SQLite instance, end to end: `greenline serve` on a data dir, a real bare git
 * remote, the built-in CI; forty PRs; the process is SIGKILLed at five moments drawn from a seeded
 * generator, and started again on the same data dir each time. A moment is a point of progress (when
 * that many PRs have left the queue) plus a random delay of up to half a second (so that it falls
 * anywhere in an effect or a CI run). The last PR's CI waits until the fifth kill is over, so the queue
 * cannot have finished before a kill however fast the machine: every kill falls inside the run. The run must end as if nothing happened: every PR terminal, none merged twice, the target
 * holding exactly the passing PRs, each tested green on the base it landed on; and after each crash
 * the queue moved on within one lease length of the kill (plus the time a process takes to start).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Prng } from '../../src/sim/prng.js';
import { CHECK_SH, writeCiScript } from './ci-script.js';
import { CRASH_SERVE_ARGS, LEASE_TTL_S, expectCrashSafe, openPrs, settleAll } from './crash-run.js';
import { GitRemote } from './git-remote.js';
import { GreenlineProcess, killAll, requireBuilt } from './greenline-process.js';
import { QueueClient } from './queue-client.js';
import { waitUntil } from '../helpers/wait-until.js';
import { makeTempDirSync, removeTempDir } from '../helpers/temp-dir.js';

requireBuilt();
afterAll(killAll);

const SLUG = 'example.com/acme/phoenix';
const PRS = 40;
const KILLS = 5;
const SEED = 20_261_122;
/** A process starting under load takes a few seconds before it can take its lease. */
const START_SLACK_MS = 6_000;

describe('one SQLite instance killed five times', () => {
  const dir = makeTempDirSync('greenline-e2e-restarts-');
  const processes: GreenlineProcess[] = [];

  afterAll(async () => {
    await processes.at(-1)?.stop();
    await removeTempDir(dir);
  });

  it(`${PRS} PRs; SIGKILLed at ${KILLS} seeded random moments and restarted on the same data dir`, async ({
    onTestFailed,
  }) => {
    const remote = await GitRemote.create(dir, { 'check.sh': CHECK_SH, 'features/base.txt': 'works\n' });
    const prs = await openPrs(remote, PRS);
    // The last PR's CI runs on only once every kill is done (its gate file exists).
    const gate = path.join(dir, 'kills-done');
    const last = prs.at(-1)!;
    const ci = writeCiScript(dir, [
      `case ",$GREENLINE_PR_NUMBERS," in *,${last},*) while [ ! -e '${gate}' ]; do sleep 0.1; done;; esac`,
    ]);
    const opts = {
      dir,
      ciMaxParallel: 6,
      repos: [{ repo: SLUG, remote: remote.dir, ciCommand: ci.command }],
      serveArgs: CRASH_SERVE_ARGS,
    };
    processes.push(await GreenlineProcess.start(opts));
    const token = processes[0]!.token;
    onTestFailed(() => {
      for (const [i, p] of processes.entries()) console.error(`--- process ${i}\n${p.story(ci.records())}`);
    });
    const queue = () => new QueueClient(processes.at(-1)!, SLUG);

    await queue().create('single', 6);
    for (const n of prs) expect((await queue().submit(n)).status, `submit #${n}`).toBe(200);

    const prng = new Prng(SEED);
    const points = new Set<number>();
    while (points.size < KILLS) points.add(2 + Math.floor(prng.next() * (PRS - 6)));
    const gaps: number[] = [];
    const queued = async (): Promise<number> => (await queue().call('getQueue')).enqueuedPullRequests.length;
    for (const [k, point] of [...points].sort((a, b) => a - b).entries()) {
      await waitUntil(`${point} PRs to leave the queue`, 150_000, async () =>
        PRS - (await queued()) >= point ? true : undefined,
      );
      await new Promise((r) => setTimeout(r, Math.floor(prng.next() * 500)));
      const left = await queued();
      expect(left, `PRs still queued at kill ${k + 1}`).toBeGreaterThan(0);
      const killedAt = Date.now();
      await processes.at(-1)!.kill();
      const next = await GreenlineProcess.start({ ...opts, token });
      processes.push(next);
      await waitForLog(next, 'queue leases taken', 30_000);
      const taken = next.logLines().find((l) => l.msg === 'queue leases taken')!.time as number;
      gaps.push(taken - killedAt);
    }
    writeFileSync(gate, '');
    console.info(
      `killed when ${[...points].sort((a, b) => a - b).join(', ')} PRs had left the queue; ` +
        `taken again ${gaps.join(', ')} ms after each kill (lease ${LEASE_TTL_S} s)`,
    );
    for (const gap of gaps) expect(gap).toBeLessThan(LEASE_TTL_S * 1000 + START_SLACK_MS);

    const entries = await settleAll(queue(), prs);
    await expectCrashSafe({ prs, entries, remote, queue: queue(), ci, processes });
  }, 240_000);
});

async function waitForLog(p: GreenlineProcess, msg: string, timeoutMs: number): Promise<void> {
  await waitUntil(
    `"${msg}" in the log`,
    timeoutMs,
    () => p.logLines().some((l) => l.msg === msg) || undefined,
    undefined,
    100,
  );
}
