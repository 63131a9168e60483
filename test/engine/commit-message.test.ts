/**
 * Commit messages: templates rendered with each placeholder, a PR's own message from its
 * description, the title pattern's refusal in words, and the setting's checks naming the field.
 */
import { describe, expect, it } from 'vitest';
import {
  commitMessageFor,
  commitMessagesProblem,
  gitMessage,
  messageFromDescription,
  titlePatternRefusal,
  type CommitPr,
} from '../../src/engine/commit-message.js';
import { validateConfigPatch } from '../../src/engine/config-validation.js';

const pr = (over: Partial<CommitPr> = {}): CommitPr => ({
  number: 7,
  title: 'Add paging to runs',
  body: 'Runs are listed 50 at a time.',
  author: 'ada',
  headBranch: 'feature/paging',
  coAuthors: ['Grace Hopper <grace@example.com>'],
  ...over,
});
const fallback = { title: 'Add paging to runs (#7)', body: 'forge default' };

describe('commitMessageFor', () => {
  it('fills every placeholder of the squash templates', () => {
    const other = pr({ number: 8, title: 'Fix typo', coAuthors: [] });
    const m = commitMessageFor(
      'squash',
      {
        squashTitle: 'feat: {title} (#{number}) by {author} from {headBranch}',
        squashBody: '{body}\n\nBatch:\n{batch}\n\n{coAuthors}',
      },
      pr(),
      [pr(), other],
      fallback,
    );
    expect(m).toEqual({
      title: 'feat: Add paging to runs (#7) by ada from feature/paging',
      body: 'Runs are listed 50 at a time.\n\nBatch:\n#7 Add paging to runs\n#8 Fix typo\n\nCo-authored-by: Grace Hopper <grace@example.com>',
    });
  });

  it("keeps the forge's own message for what the templates leave out, and the other kind's templates apart", () => {
    expect(commitMessageFor('merge', { squashTitle: 'x {title}' }, pr(), [pr()], fallback)).toEqual(fallback);
    expect(commitMessageFor('squash', null, pr(), [pr()], fallback)).toEqual(fallback);
    expect(commitMessageFor('merge', { mergeBody: 'PR #{number}' }, pr(), [pr()], fallback)).toEqual({
      title: fallback.title,
      body: 'PR #7',
    });
  });

  it('writes {{ and }} as braces and keeps a rendered title on one line', () => {
    const m = commitMessageFor('squash', { squashTitle: '{{x}} {body}' }, pr({ body: 'two\nlines' }), [], fallback);
    expect(m.title).toBe('{x} two lines');
  });

  it("uses the PR description's marked block over the templates, on both kinds", () => {
    const body =
      'Intro\n<!-- greenline:commit-message -->\nfix(api): page runs\n\nCloses the gap.\n<!-- /greenline:commit-message -->';
    expect(commitMessageFor('squash', { squashTitle: '{title}' }, pr({ body }), [], fallback)).toEqual({
      title: 'fix(api): page runs',
      body: 'Closes the gap.',
    });
    expect(commitMessageFor('merge', { mergeBody: '{body}' }, pr({ body }), [], fallback).title).toBe(
      'fix(api): page runs',
    );
  });

  it('puts the message given with the submission first; without a body it keeps the template body', () => {
    const body = '<!-- greenline:commit-message -->\nfrom the block\n<!-- /greenline:commit-message -->';
    const settings = { squashTitle: '{title}', squashBody: 'PR #{number}' };
    expect(commitMessageFor('squash', settings, pr({ body, message: 'feat: given' }), [], fallback)).toEqual({
      title: 'feat: given',
      body: 'PR #7',
    });
    expect(commitMessageFor('squash', settings, pr({ message: 'feat: given\n\nWith a body.' }), [], fallback)).toEqual({
      title: 'feat: given',
      body: 'With a body.',
    });
  });

  it('takes a merge-commit-title line as the title alone', () => {
    const m = commitMessageFor(
      'squash',
      { squashBody: 'b' },
      pr({ body: 'merge-commit-title: chore: tidy' }),
      [],
      fallback,
    );
    expect(m).toEqual({ title: 'chore: tidy', body: 'b' });
  });
});

describe('messageFromDescription', () => {
  it('is null without a block or with an empty one', () => {
    expect(messageFromDescription('no block here')).toBeNull();
    expect(messageFromDescription(null)).toBeNull();
    expect(
      messageFromDescription('<!-- greenline:commit-message -->\n  \n<!-- /greenline:commit-message -->'),
    ).toBeNull();
  });
});

describe('gitMessage', () => {
  it('separates the body by a blank line and ends with a newline', () => {
    expect(gitMessage({ title: 't', body: 'b' })).toBe('t\n\nb\n');
    expect(gitMessage({ title: 't', body: '' })).toBe('t\n');
  });
});

describe('titlePatternRefusal', () => {
  const settings = { titlePattern: '^(feat|fix|chore)(\\(.+\\))?: ' };
  it('passes a matching title and any title without a pattern', () => {
    expect(titlePatternRefusal(settings, 'fix(api): page runs')).toBeNull();
    expect(titlePatternRefusal(undefined, 'anything')).toBeNull();
  });
  it('says which title, which pattern and what to change', () => {
    const why = titlePatternRefusal(settings, 'Page runs');
    expect(why).toContain('"Page runs"');
    expect(why).toContain(settings.titlePattern);
    expect(why).toContain("change the PR's title");
  });
});

describe('commitMessagesProblem', () => {
  it('accepts templates with known placeholders and null', () => {
    expect(commitMessagesProblem({ squashTitle: '{title} (#{number})', titlePattern: '^feat' })).toBeNull();
    expect(commitMessagesProblem(null)).toBeNull();
  });
  it.each([
    [{ squashTitle: '{titel}' }, 'unknown placeholder {titel}'],
    [{ mergeBody: 'a } b' }, 'unmatched brace'],
    [{ squashTitle: ' ' }, 'squashTitle must not be empty'],
    [{ squashSubject: 'x' }, 'has no field "squashSubject"'],
    [{ titlePattern: '(' }, 'titlePattern is not a regular expression'],
    [{ mergeTitle: 3 }, 'mergeTitle must be a template string'],
    [[], 'must be an object'],
  ])('refuses %j naming the problem', (value, words) => {
    expect(commitMessagesProblem(value)).toContain(words);
  });
  it('is the queue setting commitMessages', () => {
    expect(validateConfigPatch({ commitMessages: { squashTitle: '{nope}' } })).toContain(
      'commitMessages squashTitle has an unknown placeholder {nope}',
    );
  });
});
