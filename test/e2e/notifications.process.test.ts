/**
 * End to end, chat notifications: the built server as a process with the git forge and the built-in
 * CI, a real bare git remote, and a local HTTP receiver standing in for Slack and a chat service. A
 * channel added with `greenline notify add`; a PR that breaks the repository's check fails, and the
 * channel gets a message saying so, with the reason in words and the links (the PR's through the
 * repository's PR URL template); `notify list` shows it delivered and `notify test` reaches the channel.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDirSync, removeTempDir } from '../helpers/temp-dir.js';
import { ChatReceiver } from '../notify/chat-receiver.js';
import { CHECK_SH, writeCiScript } from './ci-script.js';
import { GitRemote } from './git-remote.js';
import { GreenlineProcess, killAll, requireBuilt, runCli } from './greenline-process.js';
import { QueueClient, SETTLE_MS } from './queue-client.js';
import { waitUntil } from '../helpers/wait-until.js';

const SLUG = 'example.com/acme/shop';

requireBuilt();
afterAll(killAll);

describe('chat notifications on a real server', () => {
  let dir: string;
  let server: GreenlineProcess;
  let chat: ChatReceiver;
  let store: string[];

  beforeAll(async () => {
    dir = makeTempDirSync('greenline-e2e-notify-');
    const remote = await GitRemote.create(dir, { 'check.sh': CHECK_SH, 'features/base.txt': 'works\n' });
    await remote.openPr(1, { 'features/pr-1.txt': 'broken\n' }, 'Break the build');
    await remote.openPr(2, { 'features/pr-2.txt': 'works\n' }, 'Add a feature');
    const ci = writeCiScript(dir);
    server = await GreenlineProcess.start({
      dir,
      repos: [
        {
          repo: SLUG,
          remote: remote.dir,
          ciCommand: ci.command,
          prUrlTemplate: 'https://git.example.com/acme/shop/pulls/{n}',
        },
      ],
      serveArgs: ['--public-url', 'https://greenline.example.com'],
    });
    chat = await new ChatReceiver().start();
    store = ['--data-dir', path.join(dir, 'data')];
  }, 60_000);

  afterAll(async () => {
    await server?.stop();
    await chat?.close();
    if (dir) await removeTempDir(dir);
  });

  it('a failing PR produces a message with the reason; a merged one too when chosen', async () => {
    for (const [kind, events] of [
      ['slack', 'failed'],
      ['chat', 'failed,merged'],
    ] as const) {
      const added = await runCli([
        'notify',
        'add',
        kind,
        `${chat.base}/${kind}`,
        '--org',
        'default',
        '--events',
        events,
        ...store,
      ]);
      expect(added.code, added.stderr).toBe(0);
      expect(added.stdout).toMatch(new RegExp(`Created ${kind} channel \\S+ for every queue of organization default`));
    }
    const queue = new QueueClient(server, SLUG);
    await queue.create('single', 1);
    expect((await queue.submit(1)).status).toBe(200);
    expect((await queue.submit(2)).status).toBe(200);
    const entries = await queue.settle([1, 2], SETTLE_MS);
    expect([entries.get(1).state, entries.get(2).state]).toEqual(['FAILED', 'MERGED']);

    const posts = await waitUntil('the chat messages', 30_000, async () =>
      chat.delivered('/slack').length >= 1 && chat.delivered('/chat').length >= 2 ? chat.posts : undefined,
    );
    const slack = posts.find((p) => p.path === '/slack')!.body;
    expect(slack.blocks[0].text.text).toBe('#1 Break the build failed');
    expect(slack.blocks[1].text.text).toMatch(
      /^Failed: a required CI status failed\. .*greenline\/ci.* \(test run [0-9a-f]{8}\)$/,
    );
    expect(slack.blocks.at(-1).elements.map((e: { url: string }) => e.url)).toEqual([
      'https://git.example.com/acme/shop/pulls/1',
      'https://greenline.example.com/#/pr/example.com/acme/shop/main/1',
    ]);
    const texts = chat.delivered('/chat').map((p) => p.body.text as string);
    expect(texts.map((t) => t.split('\n')[0])).toEqual(['#1 Break the build failed', '#2 Add a feature merged']);
    expect(texts[0]).toMatch(/submitted by .+ · \d+ s in the queue · example\.com\/acme\/shop \(main\)/);

    const list = await runCli(['notify', 'list', '--org', 'default', ...store]);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/slack .* all queues {2}failed {2}enabled {2}last: failed delivered, 1 attempt\(s\)/);
    const id = /^(\S+) {2}default {2}chat/m.exec(list.stdout)![1]!;
    const tested = await runCli(['notify', 'test', id, ...store]);
    expect(tested.code, tested.stderr).toBe(0);
    expect(tested.stdout).toContain(`Test message sent to channel ${id} (HTTP 200)`);
    expect((chat.posts.at(-1)!.body.text as string).split('\n')[0]).toBe(
      'greenline test message: this channel receives failed, merged',
    );
    expect(server.problems(), 'warnings or errors in the server log').toEqual([]);
  }, 240_000);
});
