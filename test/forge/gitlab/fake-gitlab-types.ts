/** What the fake GitLab holds: its merge requests, jobs and pipelines, notes, protected branches, calls. */

export const ACCESS = { guest: 10, reporter: 20, developer: 30, maintainer: 40, owner: 50 } as const;

export interface FakeMr {
  iid: number;
  title: string;
  description: string;
  author: string;
  state: 'opened' | 'closed' | 'merged';
  source_branch: string;
  target_branch: string;
  labels: string[];
  merged_at: string | null;
  closed_at: string | null;
  merge_user: string | null;
  merge_commit_sha: string | null;
  squash_commit_sha: string | null;
  squash: boolean;
  /** Reads of the MR that still answer `checking` (GitLab checks mergeability asynchronously). */
  checking: number;
}

export type JobState = 'created' | 'pending' | 'running' | 'success' | 'failed' | 'canceled' | 'skipped' | 'manual';

/** A commit status: a CI job, or a status posted through the API (an external job). */
export interface FakeJob {
  id: number;
  pipelineId: number;
  sha: string;
  ref: string;
  name: string;
  status: JobState;
  description: string;
  target_url: string;
  author: string;
  created_at: string;
  allow_failure: boolean;
  /** Replaced by a retry. */
  retried: boolean;
}

export interface FakePipeline {
  id: number;
  iid: number;
  sha: string;
  ref: string;
  source: 'push' | 'external' | 'merge_request_event';
  created_at: string;
}

export interface FakeNote {
  id: number;
  iid: number;
  body: string;
  author: string;
  system: boolean;
  created_at: string;
  updated_at: string;
}

export interface FakeProtectedBranch {
  name: string;
  push: number;
  merge: number;
  allow_force_push: boolean;
}

export interface RecordedCall {
  method: string;
  /** Path under /api/v4 with its query, decoded. */
  path: string;
  body: unknown;
  status: number;
}
