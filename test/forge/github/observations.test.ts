/**
 * The GitHub adapter's translation of webhook payloads into forge observations, over GitHub's own
 * example payloads (@octokit/webhooks-examples, completed to today's webhook schemas: webhook-examples.ts):
 * payload in, observations out, nothing read or written.
 */
import type { WebhookEventMap } from '@octokit/webhooks-types';
import { describe, expect, it } from 'vitest';
import { gitHubObservations, readGitHubDelivery } from '../../../src/forge/github/observations.js';
import type { ForgeObservation } from '../../../src/forge/observations.js';
import { checkDelivery } from './fake-github-api.js';
import { gitHubExamples } from './webhook-examples.js';

type Name = keyof WebhookEventMap;
const all = <E extends Name>(event: E): WebhookEventMap[E][] => gitHubExamples(event) as WebhookEventMap[E][];
const withAction = <E extends Name>(event: E, action: string): WebhookEventMap[E][] => {
  const found = all(event).filter((x) => (x as { action?: string }).action === action);
  if (found.length === 0) throw new Error(`no ${event} ${action} example`);
  return found;
};
/** The observations of a payload, which must be one GitHub sends (its webhook schema). */
const observed = <E extends Name>(name: E, payload: WebhookEventMap[E]): ForgeObservation[] | undefined => {
  checkDelivery(name, payload);
  return gitHubObservations({ name, payload } as Parameters<typeof gitHubObservations>[0])?.observations;
};

const HELLO = { host: 'github.com', owner: 'Codertocat', name: 'Hello-World' };
const TEST_SHA = 'ec26c3e57ca3a959ca5aad62de7213c562f8c821';

describe('GitHub payloads into forge observations', () => {
  it('names the repository from its html_url host, owner and name', () => {
    for (const p of all('pull_request')) {
      checkDelivery('pull_request', p);
      expect(gitHubObservations({ name: 'pull_request', payload: p })?.repo).toEqual(HELLO);
    }
    const rerequested = withAction('check_run', 'rerequested')[0]!; // http://github.com/github/hello-world
    checkDelivery('check_run', rerequested);
    expect(gitHubObservations({ name: 'check_run', payload: rerequested })?.repo).toEqual({
      host: 'github.com',
      owner: 'github',
      name: 'hello-world',
    });
  });

  it('a payload without a repository (installation, a ping of an app) is no delivery', () => {
    for (const p of all('installation')) {
      checkDelivery('installation', p);
      expect(gitHubObservations({ name: 'installation', payload: p })).toBeNull();
    }
    const ping = all('ping').find((p) => !('repository' in p) || !p.repository)!;
    expect(readGitHubDelivery('ping', ping)).toBeNull();
    expect(readGitHubDelivery('pull_request', {})).toBeNull();
  });

  it('pull_request: synchronize, ready_for_review and reopened touch the PR; closed and converted_to_draft say so', () => {
    for (const action of ['synchronize', 'ready_for_review', 'reopened']) {
      for (const p of withAction('pull_request', action))
        expect(observed('pull_request', p), action).toEqual([{ kind: 'prTouched', prNumber: 2 }]);
    }
    for (const p of withAction('pull_request', 'closed'))
      expect(observed('pull_request', p)).toEqual([{ kind: 'prClosed', prNumber: 2, merged: false }]);
    const merged = withAction('pull_request', 'closed')[0]!;
    merged.pull_request.merged = true;
    expect(observed('pull_request', merged)).toEqual([{ kind: 'prClosed', prNumber: 2, merged: true }]);
    for (const p of withAction('pull_request', 'converted_to_draft')) {
      expect(observed('pull_request', p)).toEqual([{ kind: 'prConvertedToDraft', prNumber: 2 }]);
    }
  });

  it("pull_request: labeled and unlabeled name the label, the PR's base branch and who set it, and have the PR read again", () => {
    for (const p of withAction('pull_request', 'labeled')) {
      expect(observed('pull_request', p)).toEqual([
        { kind: 'prLabel', prNumber: 2, baseBranch: 'master', label: 'bug', added: true, sender: p.sender!.login },
        { kind: 'prTouched', prNumber: 2 },
      ]);
    }
    for (const p of withAction('pull_request', 'unlabeled')) {
      expect(observed('pull_request', p)).toEqual([
        { kind: 'prLabel', prNumber: 2, baseBranch: 'master', label: 'bug', added: false, sender: p.sender!.login },
        { kind: 'prTouched', prNumber: 2 },
      ]);
    }
  });

  it('pull_request: the other actions (opened, assigned, locked, review requests…) are observed as nothing', () => {
    const read = [
      'synchronize',
      'edited',
      'ready_for_review',
      'reopened',
      'closed',
      'converted_to_draft',
      'labeled',
      'unlabeled',
    ];
    const others = all('pull_request').filter((p) => !read.includes(p.action));
    expect(new Set(others.map((p) => p.action))).toContain('opened');
    for (const p of others) expect(observed('pull_request', p), p.action).toEqual([]);
  });

  it('push: a branch pushed is named; tags and deleted branches are nothing', () => {
    const pushes = all('push');
    const toMaster = pushes.filter((p) => p.ref === 'refs/heads/master');
    expect(toMaster.length).toBeGreaterThan(0);
    for (const p of toMaster) expect(observed('push', p)).toEqual([{ kind: 'branchPushed', branch: 'master' }]);
    for (const p of pushes.filter((x) => x.ref.startsWith('refs/tags/'))) expect(observed('push', p)).toEqual([]);
    const deleted = { ...toMaster[0]!, deleted: true };
    expect(observed('push', deleted)).toEqual([]);
  });

  it('check_run: every action is a status of its head sha, named by the check, linked to its details', () => {
    const states = all('check_run').map((p) => observed('check_run', p));
    /** The one observation of a check_run: the linter's status of the test sha. */
    const linter = (state: string) => [
      {
        kind: 'ciStatus',
        sha: TEST_SHA,
        status: { context: 'Octocoders-linter', state, url: 'https://octocoders.io' },
      },
    ];
    expect(states).toContainEqual(linter('pending'));
    expect(states).toContainEqual(linter('success'));
    expect(states).toContainEqual(linter('failure'));
    // A neutral conclusion ran nothing that could fail: skipped (it passes beside checks that ran).
    // (This example predates details_url, which GitHub now always sends.)
    expect(states).toContainEqual([
      {
        kind: 'ciStatus',
        sha: 'd6fde92930d4715a2b49857d24b940956b26d2d3',
        status: { context: 'randscape', state: 'skipped', url: 'https://github.com' },
      },
    ]);
    const noLink = withAction('check_run', 'completed')[0]!;
    noLink.check_run.details_url = null as unknown as string;
    noLink.check_run.html_url = null as unknown as string;
    // Not a payload GitHub sends (both are always there): read defensively all the same.
    expect(gitHubObservations({ name: 'check_run', payload: noLink })?.observations).toEqual([
      { kind: 'ciStatus', sha: TEST_SHA, status: { context: 'Octocoders-linter', state: expect.any(String) } },
    ]);
  });

  it('check_suite: completed asks for every check of its head sha; requested and rerequested are nothing', () => {
    for (const p of withAction('check_suite', 'completed'))
      expect(observed('check_suite', p)).toEqual([{ kind: 'checksCompleted', sha: TEST_SHA }]);
    for (const p of [...withAction('check_suite', 'requested'), ...withAction('check_suite', 'rerequested')])
      expect(observed('check_suite', p)).toEqual([]);
  });

  it('status: its context, state, link and description; a state GitHub does not send is nothing', () => {
    for (const p of all('status')) {
      expect(observed('status', p)).toEqual([
        {
          kind: 'ciStatus',
          sha: '6113728f27ae82c7b1a177c8d03f9e96e0adf246',
          status: { context: 'default', state: 'success' },
        },
      ]);
    }
    const linked = {
      ...all('status')[0]!,
      state: 'failure' as const,
      target_url: 'https://ci.example/1',
      description: 'lint failed',
    };
    expect(observed('status', linked)).toEqual([
      {
        kind: 'ciStatus',
        sha: '6113728f27ae82c7b1a177c8d03f9e96e0adf246',
        status: { context: 'default', state: 'failure', url: 'https://ci.example/1', description: 'lint failed' },
      },
    ]);
    expect(readGitHubDelivery('status', { ...all('status')[0]!, state: 'unknown' })?.observations).toEqual([]);
  });

  it('issue_comment: a command created in a comment on a PR, with its author and author_association; not on issues, not by bots, not edited', () => {
    // GitHub's examples comment on an issue, without a command: nothing.
    for (const p of all('issue_comment')) expect(observed('issue_comment', p)).toEqual([]);
    const onPr = (body: string) => {
      const p = withAction('issue_comment', 'created')[0]!;
      p.issue.pull_request = {
        url: 'https://api.github.com/repos/Codertocat/Hello-World/pulls/1',
      } as typeof p.issue.pull_request;
      p.comment.body = body;
      return p;
    };
    expect(observed('issue_comment', onPr('Looks good.\n/greenline merge --priority high --no-batch'))).toEqual([
      {
        kind: 'prComment',
        prNumber: 1,
        author: 'Codertocat',
        authorStanding: 'OWNER',
        command: { kind: 'merge', priority: 'high', noBatch: true },
      },
    ]);
    expect(observed('issue_comment', onPr('/trunk cancel'))).toEqual([
      { kind: 'prComment', prNumber: 1, author: 'Codertocat', authorStanding: 'OWNER', command: { kind: 'cancel' } },
    ]);
    expect(observed('issue_comment', onPr('/greenline rebase'))).toEqual([
      {
        kind: 'prComment',
        prNumber: 1,
        author: 'Codertocat',
        authorStanding: 'OWNER',
        command: { kind: 'invalid', message: expect.stringMatching(/unknown command \/greenline rebase/) },
      },
    ]);
    expect(observed('issue_comment', onPr('merge it please'))).toEqual([]);
    const byBot = onPr('/greenline merge');
    byBot.comment.user.type = 'Bot';
    expect(observed('issue_comment', byBot)).toEqual([]);
    const edited = withAction('issue_comment', 'edited')[0]!;
    edited.issue.pull_request = onPr('').issue.pull_request;
    edited.comment.body = '/greenline merge';
    expect(observed('issue_comment', edited)).toEqual([]);
  });

  it('events greenline does not read are observed as nothing', () => {
    const ping = all('ping').find((p) => 'repository' in p && p.repository)!;
    expect(readGitHubDelivery('ping', ping)).toEqual({
      repo: { host: 'github.com', owner: 'Octocoders', name: 'Hello-World' },
      observations: [],
    });
    expect(readGitHubDelivery('star', { ...all('pull_request')[0]!, action: 'created' })?.observations).toEqual([]);
  });
});
