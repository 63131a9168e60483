/**
 * End to end, a webhook receiver blip with a kill -9 in the middle: the built server as a process
 * (SQLite data dir, git forge, built-in CI) and a real receiver. The receiver's port stops listening;
 * PR 1 merges, its first event is refused twice (the next retry is 5 minutes away) and its other three
 * wait behind it. The server is SIGKILLed and started again on the same data dir; the receiver comes
 * back; PR 2's first event is delivered, and PR 1's four events follow at once, in order, each
 * webhook-id once: seconds after the recovery, not minutes.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeTempDirSync, removeTempDir } from '../helpers/temp-dir.js';
import { waitUntil } from '../helpers/wait-until.js';
import { Receiver } from '../webhooks/receiver.js';
import { CHECK_SH, writeCiScript } from './ci-script.js';
import { GitRemote } from './git-remote.js';
import { GreenlineProcess, killAll, requireBuilt, runCli } from './greenline-process.js';
import { QueueClient, SETTLE_MS } from './queue-client.js';

const SLUG = 'example.com/acme/blip';
const EVENTS = ['pull_request.submitted', 'pull_request.queued', 'pull_request.testing', 'pull_request.merged'];

requireBuilt();
afterAll(killAll);

describe('a webhook receiver blip with a kill -9 during it', () => {
  const dir = makeTempDirSync('greenline-e2e-blip-');
  const processes: GreenlineProcess[] = [];
  let receiver: Receiver | undefined;

  afterAll(async () => {
    await processes.at(-1)?.stop();
    await receiver?.close();
    await removeTempDir(dir);
  });

  it("PR 1's waiting events reach the receiver seconds after it is back, in order, once each", async () => {
    const remote = await GitRemote.create(dir, { 'check.sh': CHECK_SH, 'features/base.txt': 'works\n' });
    for (const n of [1, 2]) await remote.openPr(n, { [`features/pr-${n}.txt`]: 'works\n' }, `Change ${n}`);
    const ci = writeCiScript(dir);
    const opts = { dir, repos: [{ repo: SLUG, remote: remote.dir, ciCommand: ci.command }] };
    processes.push(await GreenlineProcess.start(opts));
    const store = ['--data-dir', path.join(dir, 'data')];
    receiver = await new Receiver().start();
    const added = await runCli(['webhook', 'add', receiver.url, '--org', 'default', ...store]);
    expect(added.code, added.stderr).toBe(0);
    receiver.secret = added.stdout.trimEnd().split('\n').at(-1)!;
    const webhookId = /Created webhook (\S+)/.exec(added.stdout)![1]!;
    const deliveries = async () =>
      (await processes.at(-1)!.api('listWebhookDeliveries', { id: webhookId })).json.deliveries as {
        eventType: string;
        attempts: number;
        status: string;
        waiting: string | null;
      }[];

    await receiver.down();
    const queue = () => new QueueClient(processes.at(-1)!, SLUG);
    await queue().create('single', 1);
    expect((await queue().submit(1)).status).toBe(200);
    expect((await queue().settle([1], SETTLE_MS)).get(1).state).toBe('MERGED');
    // The first event refused twice (no answer: connection refused); the next retry is 5 minutes away.
    const waiting = await waitUntil('PR 1 refused twice, its events queued', 60_000, async () => {
      const list = await deliveries();
      const first = list.find((d) => d.eventType === 'pull_request.submitted');
      return list.length === 4 && first?.attempts === 2 ? list : undefined;
    });
    expect(waiting.map((d) => d.status)).toEqual(['pending', 'pending', 'pending', 'pending']);
    expect(waiting.at(-1)!.waiting).toMatch(/^the endpoint did not take it \(.*ECONNREFUSED.*\); tried again at /);

    await processes.at(-1)!.kill();
    processes.push(await GreenlineProcess.start({ ...opts, token: processes[0]!.token }));
    await receiver.up();
    const recovered = Date.now();
    expect((await queue().submit(2)).status).toBe(200);
    const delivered = await waitUntil("PR 1's events delivered", 60_000, async () =>
      receiver!.delivered().filter((r) => r.body.pr_number === 1).length === 4 ? receiver!.delivered() : undefined,
    );
    const tookMs = Date.now() - recovered;
    expect(tookMs).toBeLessThan(60_000); // the retry would have been 5 minutes after the second refusal
    expect(delivered.filter((r) => r.body.pr_number === 1).map((r) => r.body.type)).toEqual(EVENTS);
    expect(new Set(delivered.map((r) => r.id)).size).toBe(delivered.length);
    expect(receiver.rejected).toEqual([]);
    expect((await queue().settle([2], SETTLE_MS)).get(2).state).toBe('MERGED');
  }, 300_000);
});
