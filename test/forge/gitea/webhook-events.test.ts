/**
 * Gitea's and Forgejo's webhook payloads into observations, read from the payloads the forges really
 * sent (test/fixtures/gitea/webhooks: CI systems' captures and the forges' own examples), each under
 * the event header the forge sends with it; and the variants no capture shows (a base branch change,
 * Gitea's added/removed labels, a status, a deleted branch), made from a capture by changing the
 * fields the forge's code sets.
 */
import { describe, expect, it } from 'vitest';
import { ciStateOf, readGiteaDelivery } from '../../../src/forge/gitea/webhook-events.js';
import type { Json } from '../../helpers/json.js';
import { capturedPayload } from './fake-gitea-api.js';

const read = (event: string, name: string, change: (p: Json) => void = () => {}) => {
  const payload = capturedPayload(name) as Json;
  change(payload);
  return readGiteaDelivery(event, payload);
};

describe('Gitea and Forgejo webhook payloads', () => {
  it('name the repository by the host of its web address (no port), its owner login and name', () => {
    expect(read('pull_request', 'gitea.pull_request.synchronized')?.repo).toEqual({
      host: '127.0.0.1',
      owner: 'Test-CI',
      name: 'multi-line-secrets',
    });
    expect(read('pull_request', 'forgejo.pull_request.label_updated')?.repo).toEqual({
      host: 'codeberg.org',
      owner: 'test_it',
      name: 'test_ci_thing',
    });
    expect(read('push', 'gitea.push')?.repo.owner).toBe('gordon');
    expect(readGiteaDelivery('push', { ref: 'refs/heads/main', after: 'a'.repeat(40) })).toBeNull();
    expect(readGiteaDelivery('push', 'not an object')).toBeNull();
  });

  it.each([
    ['gitea.pull_request.synchronized', 2],
    ['forgejo.pull_request.synchronized', 2],
    ['gitea.pull_request.reopened', 1],
    ['gitea.pull_request.edited-title', 7],
    ['gitea.pull_request.edited-title-2', 1],
    ['forgejo.pull_request.edited', 1],
  ])('%s: the PR is read again', (name, prNumber) => {
    expect(read('pull_request', name)?.observations).toEqual([{ kind: 'prTouched', prNumber }]);
  });

  it('a base branch change (edited with changes.ref.from) reads the PR again', () => {
    const moved = read('pull_request', 'gitea.pull_request.edited-title', (p) => {
      p.changes = { ref: { from: 'main' } };
      p.pull_request.base.ref = 'release';
    });
    expect(moved?.observations).toEqual([{ kind: 'prTouched', prNumber: 7 }]);
  });

  it.each([
    ['gitea.pull_request.closed-merged', true],
    ['forgejo.pull_request.closed-merged', true],
    ['gitea.pull_request.closed', false],
    ['forgejo.pull_request.closed', false],
  ])('%s: the PR left, merged = %s', (name, merged) => {
    expect(read('pull_request', name)?.observations).toEqual([{ kind: 'prClosed', prNumber: 1, merged }]);
  });

  it('label_updated without what changed (Forgejo, older Gitea) tells the labels the PR has now, and who set them', () => {
    expect(read('pull_request', 'gitea.pull_request.label_updated')?.observations).toEqual([
      { kind: 'prLabels', prNumber: 7, baseBranch: 'main', labels: ['bug', 'help wanted'], sender: 'a_nice_user' },
      { kind: 'prTouched', prNumber: 7 },
    ]);
    expect(read('pull_request', 'forgejo.pull_request.label_updated')?.observations).toEqual([
      {
        kind: 'prLabels',
        prNumber: 1,
        baseBranch: 'main',
        labels: ['Kind/Enhancement', 'Kind/Testing'],
        sender: '6543',
      },
      { kind: 'prTouched', prNumber: 1 },
    ]);
  });

  it('label_cleared: the PR has no label now, whatever the payload still lists', () => {
    expect(read('pull_request', 'forgejo.pull_request.label_cleared')?.observations).toEqual([
      { kind: 'prLabels', prNumber: 1, baseBranch: 'main', labels: [], sender: '6543' },
      { kind: 'prTouched', prNumber: 1 },
    ]);
  });

  it("label_updated with Gitea's added_labels and removed_labels tells each label added or removed", () => {
    const changed = read('pull_request', 'gitea.pull_request.label_updated', (p) => {
      p.changes = { added_labels: [{ id: 1, name: 'merge' }], removed_labels: [{ id: 2, name: 'wip' }] };
    });
    expect(changed?.observations).toEqual([
      { kind: 'prLabel', prNumber: 7, baseBranch: 'main', label: 'merge', added: true, sender: 'a_nice_user' },
      { kind: 'prLabel', prNumber: 7, baseBranch: 'main', label: 'wip', added: false, sender: 'a_nice_user' },
      { kind: 'prTouched', prNumber: 7 },
    ]);
  });

  it('opened tells the labels the PR was opened with', () => {
    expect(read('pull_request', 'gitea.pull_request.opened')?.observations).toEqual([
      { kind: 'prLabels', prNumber: 1, baseBranch: 'master', labels: [], sender: 'jcitizen' },
    ]);
  });

  it.each([
    ['gitea.push', 'main'],
    ['gitea.push-multi-commit', 'main'],
    ['gitea.push.docs-example', 'develop'],
    ['forgejo.push', 'fdsafdsa'],
    ['forgejo.push.first-party-fixture', 'main'],
  ])('%s: branch %s was pushed to', (name, branch) => {
    expect(read('push', name)?.observations).toEqual([{ kind: 'branchPushed', branch }]);
  });

  it('a deleted branch (after all zeros) and a tag are no push', () => {
    expect(read('push', 'gitea.push', (p) => (p.after = '0'.repeat(40)))?.observations).toEqual([]);
    expect(read('push', 'gitea.push', (p) => (p.ref = 'refs/tags/v1'))?.observations).toEqual([]);
  });

  it("Gitea's status event is a CI status of the commit (its payload as Gitea's CommitStatusPayload has it)", () => {
    const status = read('status', 'gitea.push', (p) => {
      Object.assign(p, {
        sha: 'b'.repeat(40),
        context: 'ci/woodpecker/pr/test',
        state: 'failure',
        target_url: 'https://ci.example.com/1',
        description: 'tests failed',
      });
    });
    expect(status?.observations).toEqual([
      {
        kind: 'ciStatus',
        sha: 'b'.repeat(40),
        status: {
          context: 'ci/woodpecker/pr/test',
          state: 'failure',
          url: 'https://ci.example.com/1',
          description: 'tests failed',
        },
      },
    ]);
    expect(
      read('status', 'gitea.push', (p) => Object.assign(p, { sha: 'b'.repeat(40), context: 'x' }))?.observations,
    ).toEqual([]);
  });

  it('Gitea status states as CI states: warning fails, unknown ones are none', () => {
    expect(['success', 'skipped', 'pending', 'failure', 'warning', 'error', 'cancelled'].map(ciStateOf)).toEqual([
      'success',
      'skipped',
      'pending',
      'failure',
      'failure',
      'error',
      null,
    ]);
  });

  it('a comment on a PR with a command is the command, by its author; other comments are nothing', () => {
    const comment = (body: string, change: (p: Json) => void = () => {}) =>
      read('issue_comment', 'gitea.issue_comment.created-on-pull', (p) => {
        p.comment.body = body;
        change(p);
      })?.observations;
    expect(comment('LGTM\n/greenline merge --priority high')).toEqual([
      {
        kind: 'prComment',
        prNumber: 2,
        command: { kind: 'merge', priority: 'high', noBatch: false },
        author: 'unknwon',
      },
    ]);
    expect(comment('/trunk cancel')).toEqual([
      { kind: 'prComment', prNumber: 2, command: { kind: 'cancel' }, author: 'unknwon' },
    ]);
    expect(read('issue_comment', 'gitea.issue_comment.created-on-pull')?.observations).toEqual([]); // "run gofmt"
    // On an issue (no pull_request, is_pull false), edited or deleted: nothing.
    expect(comment('/greenline merge', (p) => (p.issue.pull_request = null))).toEqual([]);
    expect(comment('/greenline merge', (p) => (p.action = 'edited'))).toEqual([]);
    // Current Gitea marks a comment on a PR with is_pull.
    expect(
      comment('/greenline merge', (p) =>
        Object.assign(p, { is_pull: true }, { issue: { ...p.issue, pull_request: null } }),
      ),
    ).toEqual([{ kind: 'prComment', prNumber: 2, command: { kind: 'merge', noBatch: false }, author: 'unknwon' }]);
  });

  it('events greenline does not read, and actions it does not act on, are observed as nothing', () => {
    expect(read('pull_request_approved', 'gitea.pull_request_review.approved')?.observations).toEqual([]);
    expect(read('pull_request', 'gitea.pull_request_review.approved')?.observations).toEqual([]); // action "reviewed"
    expect(
      read('pull_request', 'gitea.pull_request.synchronized', (p) => (p.action = 'assigned'))?.observations,
    ).toEqual([]);
    expect(read('create', 'gitea.push')?.observations).toEqual([]);
  });
});
