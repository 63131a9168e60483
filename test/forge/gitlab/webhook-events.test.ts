/**
 * GitLab's webhook payloads into observations, read from the examples of GitLab's own documentation
 * (test/fixtures/gitlab/webhooks), each under the `X-Gitlab-Event` GitLab sends with it; and the
 * variants no example shows (a label change, a merge, a deleted branch, a system note), made from an
 * example by changing the fields GitLab sets.
 */
import { describe, expect, it } from 'vitest';
import { readGitlabDelivery } from '../../../src/forge/gitlab/webhook-events.js';
import { capturedPayload } from './fake-gitlab-deliveries.js';

type Json = Record<string, unknown>;

const read = (event: string, name: string, change: (p: Json) => void = () => {}) => {
  const payload = capturedPayload(name);
  change(payload);
  return readGitlabDelivery(event, payload);
};
const attrs = (p: Json) => p.object_attributes as Json;

describe('GitLab webhook payloads', () => {
  it('name the project by the host of its web address and its path with namespace, subgroups included', () => {
    expect(read('Push Hook', 'push')?.repo).toEqual({ host: 'example.com', owner: 'mike', name: 'diaspora' });
    const sub = read('Push Hook', 'push', (p) => {
      Object.assign(p.project as Json, {
        web_url: 'https://gitlab.example.com:8443/acme/tools/web',
        path_with_namespace: 'acme/tools/web',
      });
    });
    expect(sub?.repo).toEqual({ host: 'gitlab.example.com', owner: 'acme/tools', name: 'web' });
    expect(readGitlabDelivery('Push Hook', { ref: 'refs/heads/main' })).toBeNull();
    expect(readGitlabDelivery('Push Hook', 'not an object')).toBeNull();
  });

  it('read a push to a branch as the branch pushed, a deleted branch as nothing', () => {
    expect(read('Push Hook', 'push')?.observations).toEqual([{ kind: 'branchPushed', branch: 'master' }]);
    expect(read('Push Hook', 'push', (p) => (p.after = '0'.repeat(40)))?.observations).toEqual([]);
  });

  it('read an opened MR as its labels now, an update as the labels changed and the MR touched, a merge and a close as closed', () => {
    expect(read('Merge Request Hook', 'merge_request.open')?.observations).toEqual([
      { kind: 'prLabels', prNumber: 1, baseBranch: 'master', labels: ['API'], sender: 'root' },
    ]);
    const update = read('Merge Request Hook', 'merge_request.open', (p) => (attrs(p).action = 'update'));
    expect(update?.observations).toEqual([
      { kind: 'prLabel', prNumber: 1, baseBranch: 'master', label: 'Platform', added: true, sender: 'root' },
      { kind: 'prLabel', prNumber: 1, baseBranch: 'master', label: 'API', added: false, sender: 'root' },
      { kind: 'prTouched', prNumber: 1 },
    ]);
    const merged = read('Merge Request Hook', 'merge_request.open', (p) => (attrs(p).action = 'merge'));
    expect(merged?.observations).toEqual([{ kind: 'prClosed', prNumber: 1, merged: true }]);
    const closed = read('Merge Request Hook', 'merge_request.open', (p) => (attrs(p).action = 'close'));
    expect(closed?.observations).toEqual([{ kind: 'prClosed', prNumber: 1, merged: false }]);
    const approved = read('Merge Request Hook', 'merge_request.open', (p) => (attrs(p).action = 'approved'));
    expect(approved?.observations).toEqual([]);
  });

  it('read a note with a command on an MR as the command and its author; other notes as nothing', () => {
    const command = read('Note Hook', 'note.merge_request.create', (p) => (attrs(p).note = '/greenline merge -p high'));
    expect(command?.observations).toEqual([
      { kind: 'prComment', prNumber: 1, command: { kind: 'merge', priority: 'high', noBatch: false }, author: 'root' },
    ]);
    expect(read('Note Hook', 'note.merge_request.create')?.observations).toEqual([]);
    const system = read('Note Hook', 'note.merge_request.create', (p) =>
      Object.assign(attrs(p), { note: '/greenline merge', system: true }),
    );
    expect(system?.observations).toEqual([]);
  });

  it('read a pipeline as the gitlab/pipeline status of its sha', () => {
    expect(read('Pipeline Hook', 'pipeline.success')?.observations).toEqual([
      {
        kind: 'ciStatus',
        sha: 'bcbb5ec396a2c0f828686f14fac9b80b780504f2',
        status: {
          context: 'gitlab/pipeline',
          state: 'success',
          url: 'http://example.com/gitlab-org/gitlab-test/-/pipelines/31',
        },
      },
    ]);
    const canceled = read('Pipeline Hook', 'pipeline.success', (p) => (attrs(p).status = 'canceled'));
    expect(canceled?.observations[0]).toMatchObject({ status: { state: 'cancelled' } });
  });
});
