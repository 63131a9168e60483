/**
 * The queue's commit title pattern at admission: a PR whose commit title would not match is refused
 * with the title, the pattern and what to change, and nothing is queued; a message given with the
 * submission is checked and reaches the merge; bad settings are a 400.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AuthContext, QueueKey } from '../../src/app/service-port.js';
import { V1_ERRORS } from '../../src/api/v1/error-status.js';
import { ServiceError } from '../../src/lib/errors.js';
import { createQueueFixture, type TestService } from '../helpers/service.js';

const REPO = 'github.com/acme/web';
let t: TestService;
let ctx: AuthContext;
let key: QueueKey;

beforeEach(async () => {
  ({ t, ctx, key } = await createQueueFixture({ queue: null }));
  await t.service.createQueue(ctx, key, {});
});
afterEach(() => t.close());

async function refusal(p: Promise<unknown>): Promise<{ code: string; status: number; message: string }> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ServiceError);
  const { code, message } = err as ServiceError;
  return { code, status: V1_ERRORS[code][0], message };
}

describe('commitMessages.titlePattern at admission', () => {
  const titlePattern = '^(feat|fix|chore)(\\(.+\\))?: ';

  it('refuses a PR whose title does not match, saying which title and what to change; queues one that does', async () => {
    await t.service.updateQueue(ctx, key, { commitMessages: { titlePattern } });
    t.forge.openPr(REPO, { number: 1, title: 'Add paging' });
    t.forge.openPr(REPO, { number: 2, title: 'feat(api): add paging' });
    const refused = await refusal(t.service.submitPullRequest(ctx, key, { prNumber: 1 }));
    expect(refused).toMatchObject({ code: 'COMMIT_TITLE_REFUSED', status: 400 });
    expect(refused.message).toContain('PR #1');
    expect(refused.message).toContain('"Add paging"');
    expect(refused.message).toContain(titlePattern);
    expect((await refusal(t.service.getSubmittedPullRequest(ctx, key, { number: 1 }))).code).toBe('PR_NOT_SUBMITTED');
    await t.service.submitPullRequest(ctx, key, { prNumber: 2 });
    expect((await t.service.getSubmittedPullRequest(ctx, key, { number: 2 })).entry.prNumber).toBe(2);
  });

  it('checks the title the squash template makes, not the PR title', async () => {
    await t.service.updateQueue(ctx, key, { commitMessages: { titlePattern, squashTitle: 'chore: {title}' } });
    t.forge.openPr(REPO, { number: 3, title: 'Bump deps' });
    await t.service.submitPullRequest(ctx, key, { prNumber: 3 });
    await t.service.updateQueue(ctx, key, { commitMessages: { titlePattern, squashTitle: '{title} (#{number})' } });
    t.forge.openPr(REPO, { number: 4, title: 'Bump more deps' });
    expect((await refusal(t.service.submitPullRequest(ctx, key, { prNumber: 4 }))).message).toContain(
      '"Bump more deps (#4)"',
    );
  });

  it('checks the message given with the submission, and the entry keeps it for the merge', async () => {
    await t.service.updateQueue(ctx, key, { commitMessages: { titlePattern } });
    t.forge.openPr(REPO, { number: 5, title: 'Untidy title' });
    const refused = await refusal(t.service.submitPullRequest(ctx, key, { prNumber: 5, commitMessage: 'Tidy' }));
    expect(refused.message).toContain('"Tidy"');
    const advance = vi.spyOn(t.forge, 'advanceTarget');
    await t.service.submitPullRequest(ctx, key, { prNumber: 5, commitMessage: 'fix: tidy\n\nBody.' });
    await t.runEffects();
    const { runId } = (await t.service.getSubmittedPullRequest(ctx, key, { number: 5 })).entry;
    await t.ci.report(runId!, 'success');
    await t.runEffects();
    expect(advance).toHaveBeenCalledOnce();
    expect(advance.mock.calls[0]![1]).toMatchObject({
      messages: { titlePattern },
      ownMessages: new Map([[5, 'fix: tidy\n\nBody.']]),
    });
  });

  it('400 for a template with an unknown placeholder or a pattern that is no regular expression', async () => {
    const bad = await refusal(t.service.updateQueue(ctx, key, { commitMessages: { squashTitle: '{tittle}' } }));
    expect(bad.status).toBe(400);
    expect(bad.message).toContain('commitMessages squashTitle has an unknown placeholder {tittle}');
    const pattern = await refusal(t.service.updateQueue(ctx, key, { commitMessages: { titlePattern: '(' } }));
    expect(pattern.message).toContain('titlePattern is not a regular expression');
  });
});
