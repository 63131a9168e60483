/**
 * GitHub's asynchronous merge in the fake of GitHub (pulls/merge-async, pulls/get-merge-async-result),
 * as GitHub's description documents it: a request answers 202 with a UUID, 409 with the UUID of the
 * pending request for the same PR, 200 when the PR is merged already, 400 when GitHub will not merge
 * it (closed, draft); it is carried out in the background — here once its result has been read
 * `readsBeforeDone` times — merging every PR of the stack up to the one named, bottom first, each PR
 * above a merged one retargeted to the stack's base as GitHub does; it is cancelled (failed) when the
 * PR's head is not the `sha` it was requested for. Results are kept by UUID; an unknown UUID is 404.
 */
import { randomUUID } from 'node:crypto';
import type { FakePull } from './fake-github-api.js';

interface AsyncRequest {
  uuid: string;
  pr: number;
  method: string;
  title: unknown;
  expectedHeadSha: string;
  reads: number;
  end: { status: 'merged'; sha: string } | { status: 'failed'; message: string } | null;
}

/** The parts of the fake an asynchronous merge acts through. */
export interface AsyncMergeHost {
  readonly pulls: Map<number, FakePull>;
  /** The classic merge of one PR, as the merge endpoint carries it out (its answer's status and body). */
  mergeNow(n: number, body: Record<string, unknown>): { status: number; body: { sha?: string; message?: string } };
}

type Answer = { status: number; body: unknown };

export class FakeAsyncMerges {
  readonly requests: AsyncRequest[] = [];
  /** Reads of a pending request's result that still answer pending before it is carried out. */
  readsBeforeDone = 1;

  constructor(private readonly host: AsyncMergeHost) {}

  /** `PUT …/pulls/{pull_number}/merge-async`. */
  request(n: number, body: Record<string, unknown>): Answer {
    const pr = this.host.pulls.get(n);
    if (!pr) return { status: 404, body: { message: 'Not Found' } };
    if (pr.merged)
      return {
        status: 200,
        body: { status: 'merged', details: { message: 'Pull request is already merged.', sha: pr.merge_commit_sha } },
      };
    if (pr.state !== 'open') return failed(400, 'Pull request is closed.');
    if (pr.draft) return failed(400, 'Pull request is still a draft.');
    const pending = this.requests.find((r) => r.pr === n && r.end === null);
    if (pending)
      return { status: 409, body: pendingBody(pending, 'A merge request already exists for this pull request.') };
    const req: AsyncRequest = {
      uuid: randomUUID(),
      pr: n,
      method: String(body.merge_method ?? 'merge'),
      title: body.commit_title,
      expectedHeadSha: String(body.sha ?? pr.head.sha),
      reads: 0,
      end: null,
    };
    this.requests.push(req);
    return { status: 202, body: pendingBody(req, 'Merge request enqueued.') };
  }

  /** `GET …/pulls/{pull_number}/merge-async/{uuid}`. */
  result(n: number, uuid: string): Answer {
    const req = this.requests.find((r) => r.uuid === uuid && r.pr === n);
    if (!req) return { status: 404, body: { message: 'Not Found' } };
    if (req.end === null && ++req.reads > this.readsBeforeDone) req.end = this.carryOut(req);
    if (req.end === null) return { status: 200, body: pendingBody(req, 'Merge request is in progress.') };
    return req.end.status === 'merged'
      ? { status: 200, body: { status: 'merged', details: { message: 'Pull request was merged.', sha: req.end.sha } } }
      : failed(200, req.end.message);
  }

  /** The stack up to the PR, bottom first, each merged by the classic merge in turn. */
  private carryOut(req: AsyncRequest): AsyncRequest['end'] {
    const pr = this.host.pulls.get(req.pr)!;
    if (pr.head.sha !== req.expectedHeadSha)
      return { status: 'failed', message: 'The head of the pull request was modified after the merge was requested.' };
    const below = pr.stack
      ? [...this.host.pulls.values()]
          .filter((p) => p.stack?.id === pr.stack!.id && p.stack.position < pr.stack!.position && !p.merged)
          .sort((a, b) => a.stack!.position - b.stack!.position)
      : [];
    let sha = '';
    for (const p of [...below, pr]) {
      const answer = this.host.mergeNow(p.number, {
        merge_method: req.method,
        sha: p.head.sha,
        ...(p === pr && req.title !== undefined ? { commit_title: req.title } : {}),
      });
      if (answer.status !== 200) return { status: 'failed', message: String(answer.body.message) };
      sha = answer.body.sha!;
      this.retargetAbove(p);
    }
    return { status: 'merged', sha };
  }

  /** The PRs based on a merged PR's head now have its base, one position lower in their stack. */
  private retargetAbove(merged: FakePull): void {
    for (const p of this.host.pulls.values()) {
      if (p.state !== 'open') continue;
      if (p.base.ref === merged.head.ref) p.base = { ...merged.base };
      if (merged.stack && p.stack?.id === merged.stack.id)
        p.stack = { ...p.stack, position: p.stack.position - 1, size: p.stack.size - 1 };
    }
  }
}

const failed = (status: number, message: string): Answer => ({
  status,
  body: { status: 'failed', details: { message } },
});

const pendingBody = (req: AsyncRequest, message: string) => ({
  status: 'pending',
  details: {
    message,
    uuid: req.uuid,
    merge_method: req.method,
    merge_action: 'direct_merge',
    expected_head_sha: req.expectedHeadSha,
  },
});
