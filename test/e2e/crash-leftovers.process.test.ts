/**
 * Fault injection, end to end, the way operators' machines fail: the whole process group of a
 * `greenline serve` is SIGKILLed at seeded random moments and the instance started again on its data
 * dir — one SQLite instance, and three instances on one PostgreSQL database (the queue's holder is the
 * one killed). The remote is a real git server (`git daemon`) outside greenline's process group; the
 * built-in CI's script starts a background process and takes a moment, as real CI scripts do, so kills
 * land in CI runs, pushes and merges. The last PR's CI waits until every kill is done, so the queue
 * cannot have finished before a kill however fast the machine.
 *
 * After recovery everything must be as if nothing happened (crash-run.ts: every PR terminal, good PRs
 * merged once, the target green commit by commit) and nothing may be left behind: no `greenline-merge/*`
 * branch on the remote, no work tree or mirror registration in any data dir, no CI process record,
 * no CI process (found in /proc by the marker the CI script exports).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Prng } from '../../src/sim/prng.js';
import { connect } from '../../src/store/connect.js';
import { listQueueLeases } from '../../src/store/queue-leases.js';
import { testDatabases } from '../helpers/databases.js';
import { CHECK_SH, writeCiScript } from './ci-script.js';
import { CRASH_SERVE_ARGS, expectCrashSafe, openPrs, settleAll } from './crash-run.js';
import { GitDaemon } from './git-daemon.js';
import { GitRemote } from './git-remote.js';
import { GreenlineProcess, killAll, requireBuilt, type GreenlineOptions } from './greenline-process.js';
import { countOf, findLeftovers, processesWith, settledLeftovers } from './leftovers.js';
import { QueueClient } from './queue-client.js';
import { waitUntil } from '../helpers/wait-until.js';

requireBuilt();
afterAll(killAll);

const SLUG = 'example.com/acme/orchard';
const MARKER = { name: 'E2E_CI_MARKER', value: `greenline-crash-leftovers-${randomBytes(4).toString('hex')}` };
/** Exported for the whole script: every CI process carries it, the background one included. */
const CI_PRELUDE = [`export ${MARKER.name}=${MARKER.value}`, 'sleep 300 &', 'sleep 0.5'];
/** How long the work in flight when the last PR settled may take to finish (branch deletions, CI runs). */
const SETTLE_LEFTOVERS_MS = 20_000;

const pg = (await testDatabases()).filter((d) => d.name === 'postgres');

interface Setup {
  dir: string;
  daemon: GitDaemon;
  remote: GitRemote;
  prs: number[];
  ci: ReturnType<typeof writeCiScript>;
  common: GreenlineOptions;
  /** Opens the last PR's CI, which waits until every kill is done, so no kill comes after the queue finished. */
  killsDone: () => void;
}

async function setUp(name: string, prCount: number, databaseUrl?: string): Promise<Setup> {
  const dir = mkdtempSync(path.join(tmpdir(), `greenline-e2e-${name}-`));
  const remote = await GitRemote.create(dir, { 'check.sh': CHECK_SH, 'features/base.txt': 'works\n' });
  const daemon = await GitDaemon.start(dir, 'remote.git');
  const prs = await openPrs(remote, prCount);
  const gate = path.join(dir, 'kills-done');
  const ci = writeCiScript(dir, [
    ...CI_PRELUDE,
    `case ",$GREENLINE_PR_NUMBERS," in *,${prs.at(-1)},*) while [ ! -e '${gate}' ]; do sleep 0.1; done;; esac`,
  ]);
  const common: GreenlineOptions = {
    dir,
    ciMaxParallel: 6,
    ownProcessGroup: true,
    serveArgs: CRASH_SERVE_ARGS,
    repos: [{ repo: SLUG, remote: daemon.url('remote.git'), ciCommand: ci.command }],
    ...(databaseUrl ? { databaseUrl } : {}),
  };
  return { dir, daemon, remote, prs, ci, common, killsDone: () => writeFileSync(gate, '') };
}

/** Kill moments: when that many PRs have left the queue (seeded), in order. */
function killPoints(prng: Prng, prCount: number, kills: number): number[] {
  const points = new Set<number>();
  while (points.size < kills) points.add(2 + Math.floor(prng.next() * (prCount - 5)));
  return [...points].sort((a, b) => a - b);
}

/**
 * Waits for the kill moment: `point` PRs out of the queue, then up to a second (seeded); for every
 * other kill (seeded) also until a CI command runs, so that kills land in CI runs as well as in
 * pushes and merges whatever share of the time CI takes on the machine.
 */
async function waitForKillMoment(prng: Prng, queue: () => QueueClient, prCount: number, point: number): Promise<void> {
  await waitUntil(`${point} PRs to leave the queue`, 120_000, async () =>
    prCount - (await queue().call('getQueue')).enqueuedPullRequests.length >= point ? true : undefined,
  );
  await new Promise((r) => setTimeout(r, Math.floor(prng.next() * 1_000)));
  if (prng.next() < 0.5) {
    await waitUntil('a CI command to run', 30_000, async () =>
      (await processesWith(MARKER.name, MARKER.value)).length > 0 ? true : undefined,
    );
  }
}

/** Checks the end state; logs the leftovers whatever they are (the figures of a run on code without the clean-up). */
async function expectNothingLeft(
  s: Setup,
  dataDirs: string[],
  processes: GreenlineProcess[],
  queue: QueueClient,
  label: string,
): Promise<void> {
  const entries = await settleAll(queue, s.prs);
  await expectCrashSafe({ prs: s.prs, entries, remote: s.remote, queue, ci: s.ci, processes });
  const left = await settledLeftovers(() => findLeftovers(s.remote, dataDirs, MARKER), SETTLE_LEFTOVERS_MS);
  console.info(`${label}: left behind after recovery: ${countOf(left)}`);
  expect(left).toEqual({ branches: [], worktrees: [], records: [], processes: [] });
}

/** Stops what a failed run (or code without the clean-up) left running: the CI processes with our marker. */
async function killMarked(): Promise<void> {
  for (const pid of await processesWith(MARKER.name, MARKER.value)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}

describe('kill -9 of the whole process group; nothing left behind', () => {
  const setups: Setup[] = [];
  const live: GreenlineProcess[] = [];

  afterAll(async () => {
    await Promise.all(live.map((p) => p.stop()));
    await killMarked();
    for (const s of setups) {
      await s.daemon.stop();
      rmSync(s.dir, { recursive: true, force: true });
    }
  });

  it('one SQLite instance: 12 PRs, its group killed at 3 seeded random moments and restarted on the same data dir', async ({
    onTestFailed,
  }) => {
    const PRS = 12;
    const started = Date.now();
    const s = await setUp('leftovers-sqlite', PRS);
    setups.push(s);
    const processes = [await GreenlineProcess.start(s.common)];
    live.push(processes[0]!);
    const token = processes[0]!.token;
    onTestFailed(() => {
      for (const [i, p] of processes.entries()) console.error(`--- process ${i}\n${p.story(s.ci.records())}`);
    });
    const queue = () => new QueueClient(processes.at(-1)!, SLUG);
    await queue().create('single', 6);
    for (const n of s.prs) expect((await queue().submit(n)).status, `submit #${n}`).toBe(200);

    const prng = new Prng(20_261_124);
    const atKill: number[] = [];
    for (const point of killPoints(prng, PRS, 3)) {
      await waitForKillMoment(prng, queue, PRS, point);
      await processes.at(-1)!.killGroup();
      atKill.push((await processesWith(MARKER.name, MARKER.value)).length);
      const next = await GreenlineProcess.start({ ...s.common, token });
      processes.push(next);
      live.splice(0, live.length, next);
    }
    s.killsDone();
    console.info(`sqlite: 3 kills; CI processes alive right after each kill: ${atKill.join(', ')}`);
    await expectNothingLeft(s, [path.join(s.dir, 'data')], processes, queue(), 'sqlite');
    console.info(`sqlite: ${Date.now() - started} ms`);
  }, 150_000);

  describe.each(pg)('three instances on one $name database', (database) => {
    afterAll(() => database.cleanup());

    it("12 PRs; the group of the queue's holder killed at 3 seeded random moments, each restarted on its data dir", async ({
      onTestFailed,
    }) => {
      const PRS = 12;
      // The SQLite instance of the test before is done: it takes no part here.
      await Promise.all(live.splice(0).map((p) => p.stop()));
      const started = Date.now();
      const url = await database.url();
      const s = await setUp('leftovers-pg', PRS, url);
      setups.push(s);
      const first = await GreenlineProcess.start({ ...s.common, dataDirName: 'data-0' });
      const servers = [
        first,
        ...(await Promise.all(
          [1, 2].map((i) => GreenlineProcess.start({ ...s.common, dataDirName: `data-${i}`, token: first.token })),
        )),
      ];
      live.splice(0, live.length, ...servers);
      const all = [...servers];
      onTestFailed(() => {
        for (const [i, p] of all.entries()) console.error(`--- process ${i}\n${p.story(s.ci.records())}`);
      });
      const queue = () => new QueueClient(servers[0]!, SLUG);
      await queue().create('single', 6);
      for (const n of s.prs)
        expect((await new QueueClient(servers[n % 3]!, SLUG).submit(n)).status, `submit #${n}`).toBe(200);

      const db = connect({ databaseUrl: url, dataDir: s.dir });
      const prng = new Prng(20_261_125);
      const atKill: number[] = [];
      try {
        for (const point of killPoints(prng, PRS, 3)) {
          await waitForKillMoment(prng, queue, PRS, point);
          // Right after a kill the lease still names the killed instance until a live one takes it over.
          const i = await waitUntil(
            'a live instance to hold the queue',
            30_000,
            async () => {
              const [lease] = await listQueueLeases(db);
              const at = servers.findIndex((p) =>
                p.logLines().some((l) => l.msg === 'queue leases taken' && l.instance === lease?.holder),
              );
              return at >= 0 ? at : undefined;
            },
            async () => (await listQueueLeases(db))[0],
          );
          await servers[i]!.killGroup();
          atKill.push((await processesWith(MARKER.name, MARKER.value)).length);
          servers[i] = await GreenlineProcess.start({ ...s.common, dataDirName: `data-${i}`, token: first.token });
          all.push(servers[i]!);
          live.splice(0, live.length, ...servers);
        }
      } finally {
        s.killsDone();
        await db.destroy();
      }
      console.info(
        `postgres: 3 kills; CI processes (of any instance) running right after each kill: ${atKill.join(', ')}`,
      );
      await expectNothingLeft(
        s,
        [0, 1, 2].map((i) => path.join(s.dir, `data-${i}`)),
        all,
        queue(),
        'postgres',
      );
      console.info(`postgres: ${Date.now() - started} ms`);
    }, 150_000);
  });
});
