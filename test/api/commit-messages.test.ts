/**
 * The `commitMessages` setting through the v1 API (docs/api.md "Commit messages (extension)"):
 * absent while unset, set and removed by updateQueue, bad templates and fields refused with a 400
 * naming them, and a submission whose title the pattern refuses answered 400 with the reason.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiHarness, errorOf, json, type ApiHarness } from './api-harness.js';

let h: ApiHarness;
beforeEach(async () => {
  h = await createApiHarness();
  await h.queueWithPrs(0);
});
afterEach(() => h.close());

const update = (fields: Record<string, unknown>) => h.post('/v1/updateQueue', h.body(fields));
const getQueue = async () => json(await h.post('/v1/getQueue', h.body()));
const templates = {
  squashTitle: 'feat: {title} (#{number})',
  squashBody: '{body}\n\n{coAuthors}',
  titlePattern: '^feat',
};

describe('commitMessages', () => {
  it('is absent while unset, shown once set, and removed by null', async () => {
    expect(await getQueue()).not.toHaveProperty('commitMessages');
    const res = await update({ commitMessages: templates });
    expect(res.statusCode, res.body).toBe(200);
    expect((await getQueue()).commitMessages).toEqual(templates);
    expect((await update({ commitMessages: null })).statusCode).toBe(200);
    expect(await getQueue()).not.toHaveProperty('commitMessages');
  });

  it.each([
    [{ squashTitle: '{tittle}' }, 'unknown placeholder {tittle}'],
    [{ titlePattern: '[' }, 'titlePattern'],
    [{ squashTitle: 42 }, 'squashTitle'],
    [{ squashSubject: 'x' }, 'squashSubject'],
  ])('%j → 400 naming the problem', async (commitMessages, words) => {
    const e = errorOf(await update({ commitMessages }));
    expect(e.status).toBe(400);
    expect(e.message).toContain(words);
    expect(await getQueue()).not.toHaveProperty('commitMessages');
  });

  it('answers a submission whose commit title the pattern refuses with 400 COMMIT_TITLE_REFUSED', async () => {
    await update({ commitMessages: { titlePattern: '^(feat|fix): ' } });
    h.t.forge.openPr('github.com/acme/web', { number: 5, title: 'Tidy up' });
    const e = errorOf(await h.post('/v1/submitPullRequest', h.body({ pr: { number: 5 } })));
    expect(e).toMatchObject({ status: 400, code: 'COMMIT_TITLE_REFUSED' });
    expect(e.message).toContain('"Tidy up"');
  });
});
