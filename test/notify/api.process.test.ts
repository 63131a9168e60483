/**
 * The chat notification endpoints under /v1 (add, list, remove, enable, test) and `greenline notify`
 * as a real process: the caller's organization only, bad input answered 4xx naming the problem.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiHarness, errorOf, json, type ApiHarness } from '../api/api-harness.js';
import { runCli } from '../cli/run-cli.js';
import { makeTempDirSync, removeTempDir } from '../helpers/temp-dir.js';
import { ChatReceiver } from './chat-receiver.js';

let h: ApiHarness;
let other: string;
let chat: ChatReceiver;
beforeAll(async () => {
  h = await createApiHarness();
  other = (await h.t.createOrg('beta')).token;
  chat = await new ChatReceiver().start();
});
afterAll(async () => {
  await chat.close();
  await h.close();
});

describe('notification channel endpoints', () => {
  it('adds a channel for one queue, lists it for its organization only, tests and removes it', async () => {
    const res = await h.post('/v1/createNotificationChannel', {
      kind: 'teams',
      url: `${chat.base}/teams`,
      repo: 'github.com/acme/web',
      branch: 'main',
    });
    expect(res.statusCode, res.body).toBe(200);
    const created = json(res);
    expect(created).toEqual({
      id: expect.any(String),
      kind: 'teams',
      url: `${chat.base}/teams`,
      queue: { repo: 'github.com/acme/web', branch: 'main' },
      events: [
        'failed',
        'cancelled',
        'queue_paused',
        'queue_resumed',
        'queue_frozen',
        'queue_unfrozen',
        'status_quarantined',
        'status_quarantine_lifted',
      ],
      enabled: true,
      disabledReason: null,
      failingSince: null,
      lastMessage: null,
      createdAt: expect.stringMatching(/Z$/),
    });
    expect(json(await h.post('/v1/listNotificationChannels', {})).channels).toEqual([created]);
    expect(json(await h.post('/v1/listNotificationChannels', {}, { 'x-api-token': other })).channels).toEqual([]);

    const tested = json(await h.post('/v1/testNotificationChannel', { id: created.id }));
    expect(tested).toEqual({ ok: true, statusCode: 200, error: null });
    expect(chat.posts.at(-1)!.body.attachments[0].content.body[0].text).toMatch(/^greenline test message/);
    chat.status = 500;
    expect(json(await h.post('/v1/testNotificationChannel', { id: created.id }))).toMatchObject({
      ok: false,
      statusCode: 500,
      error: 'HTTP 500: no_service',
    });
    chat.status = 200;

    const foreign = await h.post('/v1/deleteNotificationChannel', { id: created.id }, { 'x-api-token': other });
    expect(errorOf(foreign)).toMatchObject({ status: 404, code: 'NOTIFICATION_CHANNEL_NOT_FOUND' });
    expect((await h.post('/v1/deleteNotificationChannel', { id: created.id })).statusCode).toBe(200);
    expect(json(await h.post('/v1/listNotificationChannels', {})).channels).toEqual([]);
  });

  it.each([
    [{ kind: 'irc', url: 'http://127.0.0.1/' }, 400, /kind/],
    [{ kind: 'slack', url: 'http://169.254.169.254/' }, 400, /link-local or cloud metadata/],
    [{ kind: 'chat', url: 'http://127.0.0.1/', events: ['landed'] }, 400, /events/],
    [{ kind: 'chat', url: 'http://127.0.0.1/', repo: 'github.com/acme/web' }, 400, /give both repo .* and branch/],
    [
      { kind: 'chat', url: 'http://127.0.0.1/', repo: 'github.com/acme/nope', branch: 'main' },
      404,
      /github\.com\/acme\/nope/,
    ],
  ])('refuses %j', async (body, status, message) => {
    const res = await h.post('/v1/createNotificationChannel', body);
    const error = errorOf(res);
    expect(error.status, res.body).toBe(status);
    expect(error.message).toMatch(message);
  });
});

describe('greenline notify', () => {
  let dir: string;
  beforeAll(() => {
    dir = makeTempDirSync('greenline-notify-cli-');
  });
  afterAll(() => removeTempDir(dir));

  it('adds, lists, tests and removes a channel; bad input says what is wrong', async () => {
    const added = await runCli([
      'notify',
      'add',
      'chat',
      `${chat.base}/cli`,
      '--org',
      'acme',
      '--events',
      'merged',
      '--data-dir',
      dir,
    ]);
    expect(added.code, added.stderr).toBe(0);
    const id = /Created chat channel (\S+) for every queue of organization acme/.exec(added.stdout)![1]!;
    const list = await runCli(['notify', 'list', '--data-dir', dir]);
    expect(list.stdout).toBe(`${id}  acme  chat  ${chat.base}/cli  all queues  merged  enabled\n`);
    const tested = await runCli(['notify', 'test', id, '--data-dir', dir]);
    expect(tested.stdout).toBe(`Test message sent to channel ${id} (HTTP 200).\n`);
    expect(chat.delivered('/cli').length).toBe(1);
    expect((await runCli(['notify', 'remove', id, '--data-dir', dir])).code).toBe(0);

    const cases: [string[], RegExp][] = [
      [
        ['add', 'irc', 'http://127.0.0.1/', '--org', 'acme'],
        /value 'irc' is invalid for argument 'kind'. Allowed choices are slack, teams, chat/,
      ],
      [
        ['add', 'chat', 'http://127.0.0.1/', '--org', 'acme', '--events', 'landed'],
        /unknown notification event "landed"/,
      ],
      [['add', 'chat', 'http://127.0.0.1/', '--org', 'acme', '--branch', 'main'], /give both repo/],
      [['remove', 'nope'], /No notification channel has id nope/],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(['notify', ...args, '--data-dir', dir]);
      expect(r.code, args.join(' ')).not.toBe(0);
      expect(r.stderr, args.join(' ')).toMatch(message);
    }
  }, 120_000);
});
