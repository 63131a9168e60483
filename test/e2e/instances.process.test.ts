/**
 * Several instances on one PostgreSQL database, end to end: three `greenline serve` processes (each
 * with its own data dir), a real bare git remote, the built-in CI. Sixty PRs are submitted round-robin
 * across the three over HTTP; when a third of them are done, the instance driving the queue (the
 * holder of its lease) is killed with SIGKILL. Another instance must take the queue over within one
 * lease length (3 s here) and finish the job: every PR terminal, none merged twice, the target holding
 * exactly the passing PRs, each tested green on the base it landed on.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { connect } from '../../src/store/connect.js';
import { listQueueLeases } from '../../src/store/queue-leases.js';
import { testDatabases } from '../helpers/databases.js';
import { CHECK_SH, writeCiScript } from './ci-script.js';
import { CRASH_SERVE_ARGS, LEASE_TTL_S as TTL_S, expectCrashSafe, openPrs, settleAll } from './crash-run.js';
import { GitRemote } from './git-remote.js';
import { GreenlineProcess, killAll, requireBuilt } from './greenline-process.js';
import { QueueClient } from './queue-client.js';
import { waitUntil } from '../helpers/wait-until.js';
import { makeTempDirSync, removeTempDir } from '../helpers/temp-dir.js';

requireBuilt();
afterAll(killAll);

const SLUG = 'example.com/acme/fleet';
const PRS = 60;
const pg = (await testDatabases()).filter((d) => d.name === 'postgres');

describe.each(pg)('three instances on one $name database', (database) => {
  const dir = makeTempDirSync('greenline-e2e-instances-');
  let servers: GreenlineProcess[] = [];

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await database.cleanup();
    await removeTempDir(dir);
  });

  it(`${PRS} PRs round-robin over three instances; the queue's holder SIGKILLed mid-run; another takes over within the lease`, async ({
    onTestFailed,
  }) => {
    const remote = await GitRemote.create(dir, { 'check.sh': CHECK_SH, 'features/base.txt': 'works\n' });
    const prs = await openPrs(remote, PRS);
    const ci = writeCiScript(dir);
    const url = await database.url();
    const common = {
      dir,
      databaseUrl: url,
      ciMaxParallel: 6,
      repos: [{ repo: SLUG, remote: remote.dir, ciCommand: ci.command }],
      serveArgs: CRASH_SERVE_ARGS,
    };
    const first = await GreenlineProcess.start({ ...common, dataDirName: 'data-0' });
    servers = [
      first,
      ...(await Promise.all(
        [1, 2].map((i) => GreenlineProcess.start({ ...common, dataDirName: `data-${i}`, token: first.token })),
      )),
    ];
    onTestFailed(() => {
      for (const [i, s] of servers.entries()) console.error(`--- instance ${i}\n${s.story(ci.records())}`);
    });
    const clients = servers.map((s) => new QueueClient(s, SLUG));

    await clients[0]!.create('single', 6);
    const started = Date.now();
    for (const n of prs) expect((await clients[n % 3]!.submit(n)).status, `submit #${n}`).toBe(200);

    const db = connect({ databaseUrl: url, dataDir: dir });
    let killedAt = 0;
    let victim: GreenlineProcess;
    try {
      await waitUntil(`a third of the PRs to leave the queue`, 120_000, async () =>
        (await clients[1]!.call('getQueue')).enqueuedPullRequests.length <= PRS - PRS / 3 ? true : undefined,
      );
      console.info(`a third done after ${Date.now() - started} ms`);
      const [lease] = await listQueueLeases(db);
      victim = servers.find((s) =>
        s.logLines().some((l) => l.msg === 'queue leases taken' && l.instance === lease!.holder),
      )!;
      expect(victim, `the instance holding ${lease!.holder}`).toBeDefined();
      killedAt = Date.now();
      await victim.kill();
    } finally {
      await db.destroy();
    }
    const survivors = servers.filter((s) => s !== victim);
    const client = new QueueClient(survivors[0]!, SLUG);

    const entries = await settleAll(client, prs);
    console.info(`all done after ${Date.now() - started} ms`);
    await expectCrashSafe({ prs, entries, remote, queue: client, ci, processes: servers });

    // The queue moved on within one lease length: a survivor took the lease, and the queue's next
    // transition came soon after (the slack covers a CI run restarted on the new holder).
    const delaysOf = (msg: string) =>
      survivors
        .flatMap((s) => s.logLines())
        .filter((l) => l.msg === msg && (l.time as number) > killedAt)
        .map((l) => (l.time as number) - killedAt);
    const takenAfter = Math.min(...delaysOf('queue leases taken'));
    const movedAfter = Math.min(...delaysOf('transition'));
    console.info(
      `queue lease taken over ${takenAfter} ms after the kill, next transition after ${movedAfter} ms (lease ${TTL_S} s)`,
    );
    expect(takenAfter).toBeLessThan(TTL_S * 1000 + 2_000);
    expect(movedAfter).toBeLessThan(TTL_S * 1000 + 8_000);
  }, 240_000);
});
