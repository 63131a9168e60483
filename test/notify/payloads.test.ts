/**
 * The message builders: a Slack message is Block Kit typed by @slack/types (checked by the compiler,
 * here through `satisfies`), a Teams message is an Adaptive Card recognised by @microsoft/teams.cards'
 * own guard, and every form says the same facts in words. The queue events map to their notification
 * events, frozen and unfrozen included (synthetic payloads: the engine that emits them is elsewhere).
 */
import { isAdaptiveCard, isOpenUrlAction, isTextBlock } from '@microsoft/teams.cards';
import type { KnownBlock } from '@slack/types';
import type { IncomingWebhookSendArguments } from '@slack/webhook';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QueueEventPayload } from '../../src/engine/types.js';
import { failedCheckUrl } from '../../src/app/executor/ci-outcome.js';
import { reasonMessage } from '../../src/engine/pr-reason.js';
import { notifyEventOf, parseNotifyEvents } from '../../src/notify/events.js';
import { type EventQueue, messageBody, noticeOf } from '../../src/notify/fan-out.js';
import { inWords, type Notice, noticeText } from '../../src/notify/notice.js';
import { slackMessage } from '../../src/notify/slack.js';
import { teamsMessage } from '../../src/notify/teams.js';
import { createTestService, type TestService } from '../helpers/service.js';

const failed: Notice = {
  event: 'failed',
  repo: 'github.com/acme/web',
  branch: 'main',
  queueUrl: 'https://greenline.example.com/#/queue/github.com/acme/web/main',
  pr: {
    number: 42,
    title: 'Add <login> & logout',
    author: 'alice',
    forgeUrl: 'https://github.com/acme/web/pull/42',
    dashboardUrl: 'https://greenline.example.com/#/pr/github.com/acme/web/main/42',
    reason: 'Failed: a required CI status failed.',
    detail: 'greenline/ci: exit code 1',
    testRunId: '1a2b3c4d-0000-4000-8000-000000000000',
    checkUrl: 'https://ci.example.com/runs/7',
    timeInQueueMs: 12 * 60_000 + 5_000,
  },
  at: Date.UTC(2026, 2, 2, 10, 0),
};

const queueEvent = (type: QueueEventPayload['type']): QueueEventPayload => ({
  type,
  at: Date.UTC(2026, 2, 2, 22, 0),
  prNumbers: [],
  prNumbersInBatch: [],
  runId: null,
  testBranch: null,
  testBranchSha: null,
  reason: null,
  batched: false,
  isBisection: false,
});

describe('plain text', () => {
  it('says the PR, the outcome and reason, who submitted it, the time in queue and the links', () => {
    expect(noticeText(failed)).toBe(
      [
        '#42 Add <login> & logout failed',
        'Failed: a required CI status failed. greenline/ci: exit code 1 (test run 1a2b3c4d)',
        'submitted by alice · 12 min in the queue · github.com/acme/web (main)',
        'Pull request: https://github.com/acme/web/pull/42',
        'Dashboard: https://greenline.example.com/#/pr/github.com/acme/web/main/42',
        'Log: https://ci.example.com/runs/7',
      ].join('\n'),
    );
    expect(JSON.parse(messageBody('chat', failed))).toEqual({ text: noticeText(failed) });
  });

  it('leaves the forge link out when the PR has no known address (a git forge without a PR URL template)', () => {
    const text = noticeText({ ...failed, pr: { ...failed.pr!, forgeUrl: null } });
    expect(text).not.toContain('Pull request:');
    expect(text).toContain('Dashboard: https://greenline.example.com/#/pr/github.com/acme/web/main/42');
  });

  it('writes durations in words', () => {
    expect([45_000, 12 * 60_000, 125 * 60_000, 76 * 3_600_000].map(inWords)).toEqual([
      '45 s',
      '12 min',
      '2 h 5 min',
      '3 d 4 h',
    ]);
  });
});

describe('Slack', () => {
  it('is Block Kit: a header, the reason (mrkdwn escaped), the context and link buttons; text as fallback', () => {
    const message = slackMessage(failed) satisfies IncomingWebhookSendArguments;
    const blocks = message.blocks as KnownBlock[];
    expect(blocks.map((b) => b.type)).toEqual(['header', 'section', 'context', 'actions']);
    expect(blocks[0]).toEqual({
      type: 'header',
      text: { type: 'plain_text', text: '#42 Add <login> & logout failed', emoji: true },
    });
    expect(blocks[1]).toMatchObject({
      text: {
        type: 'mrkdwn',
        text: 'Failed: a required CI status failed. greenline/ci: exit code 1 (test run 1a2b3c4d)',
      },
    });
    const actions = blocks[3] as Extract<KnownBlock, { type: 'actions' }>;
    expect(actions.elements.map((e) => ('url' in e ? e.url : null))).toEqual([
      failed.pr!.forgeUrl,
      failed.pr!.dashboardUrl,
      failed.pr!.checkUrl,
    ]);
    expect(message.text).toBe(noticeText(failed));
    const escaped = slackMessage({ ...failed, pr: { ...failed.pr!, detail: 'a <b> & c' } }).blocks![1];
    expect(JSON.stringify(escaped)).toContain('a &lt;b&gt; &amp; c');
  });
});

describe('Teams', () => {
  it('is an Adaptive Card in a message envelope, with the same facts and OpenUrl actions', () => {
    const message = teamsMessage(failed);
    expect(message.type).toBe('message');
    const [attachment] = message.attachments;
    expect(attachment!.contentType).toBe('application/vnd.microsoft.card.adaptive');
    const card = attachment!.content;
    expect(isAdaptiveCard(card)).toBe(true);
    expect(card.version).toBe('1.4');
    const texts = (card.body ?? []).filter(isTextBlock).map((b) => b.text);
    expect(texts).toEqual([
      '#42 Add <login> & logout failed',
      'Failed: a required CI status failed. greenline/ci: exit code 1 (test run 1a2b3c4d)',
      'submitted by alice · 12 min in the queue · github.com/acme/web (main)',
    ]);
    expect((card.actions ?? []).filter(isOpenUrlAction).map((a) => a.title)).toEqual([
      'Pull request',
      'Dashboard',
      'Log',
    ]);
  });
});

describe('events', () => {
  it("maps the queue's events, frozen and unfrozen included; batch and other events are not announced", () => {
    expect(
      (
        [
          'pull_request.merged',
          'pull_request.failed',
          'pull_request.canceled',
          'pull_request.pending_failure',
          'queue.paused',
          'queue.resumed',
          'queue.frozen',
          'queue.unfrozen',
          'pull_request.testing',
          'pull_request_batch.failed',
        ] as const
      ).map(notifyEventOf),
    ).toEqual([
      'merged',
      'failed',
      'cancelled',
      'pending_failure',
      'queue_paused',
      'queue_resumed',
      'queue_frozen',
      'queue_unfrozen',
      null,
      null,
    ]);
  });

  it('defaults to failed, cancelled, the queue state changes and quarantines; names an unknown event', () => {
    expect(parseNotifyEvents(undefined)).toEqual([
      'failed',
      'cancelled',
      'queue_paused',
      'queue_resumed',
      'queue_frozen',
      'queue_unfrozen',
      'status_quarantined',
      'status_quarantine_lifted',
    ]);
    expect(parseNotifyEvents('merged, failed')).toEqual(['merged', 'failed']);
    expect(() => parseNotifyEvents(['merged', 'landed'])).toThrow(/unknown notification event "landed"; known: merged/);
  });

  it('a quarantine says which status, how and why, in words', () => {
    expect(notifyEventOf('queue.status_quarantined')).toBe('status_quarantined');
    const n = {
      event: 'status_quarantined' as const,
      repo: 'github.com/acme/web',
      branch: 'main',
      queueUrl: null,
      pr: null,
      at: 0,
      quarantine: { status: 'lint', automatic: true, reason: 'flaky in 6 of its last 40 results (15%)' },
    };
    expect(noticeText(n)).toMatch(
      /^Queue github.com\/acme\/web \(main\) quarantined required status "lint" automatically \(it no longer gates merges\): flaky in 6 of its last 40 results \(15%\)/,
    );
    expect(noticeText({ ...n, event: 'status_quarantine_lifted' })).toMatch(
      /lifted the quarantine of required status "lint" automatically: flaky in 6/,
    );
  });

  let t: TestService;
  beforeAll(async () => {
    t = await createTestService();
  });
  afterAll(() => t.close());
  const q: EventQueue = {
    queueId: 'q1',
    orgId: 'o1',
    repoId: 'r1',
    host: 'git.example.com',
    owner: 'team',
    name: 'api',
    targetBranch: 'release/2',
    forge: 'git',
    pr_url_template: null,
  };

  it('words a queue.frozen event with its reason and end, with the queue page in the dashboard', async () => {
    const freeze = { reason: 'release 2.4', until: Date.UTC(2026, 2, 3, 6, 0) };
    const notice = await noticeOf(
      t.db,
      q,
      { ...queueEvent('queue.frozen'), freeze },
      {
        words: { sentence: reasonMessage, failedCheckUrl },
        publicUrl: 'https://greenline.example.com/',
      },
    );
    expect(notice).toMatchObject({ event: 'queue_frozen', pr: null });
    expect(noticeText(notice!)).toBe(
      [
        'Queue git.example.com/team/api (release/2) frozen until 2026-03-03T06:00:00.000Z: release 2.4',
        'git.example.com/team/api (release/2)',
        'Dashboard: https://greenline.example.com/#/queue/git.example.com/team/api/release%2F2',
      ].join('\n'),
    );
    const unfrozen = await noticeOf(
      t.db,
      q,
      { ...queueEvent('queue.unfrozen'), freeze },
      {
        words: { sentence: reasonMessage, failedCheckUrl },
        publicUrl: null,
      },
    );
    expect(noticeText(unfrozen!)).toBe(
      'Queue git.example.com/team/api (release/2) unfrozen (the freeze for release 2.4 ended)\ngit.example.com/team/api (release/2)',
    );
  });
});
