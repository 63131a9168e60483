/**
 * What the fake of GitHub serves, by GitHub's names: the REST operations (operationIds of
 * @octokit/openapi) its handler table answers, and the webhook events whose payloads tests deliver.
 * The committed subset of GitHub's description (test/fixtures/github/, written by
 * scripts/github-description-subset.ts) holds these in full; every other operation stays there for
 * routing alone, and using it is a violation until it is added here and the subset regenerated.
 */
import { GITHUB_WEBHOOK_EVENTS } from '../../../src/forge/github/observations.js';

export const FAKE_OPERATIONS = [
  'apps/create-installation-access-token',
  'apps/get-repo-installation',
  'apps/create-from-manifest',
  'repos/get',
  'actions/list-workflow-runs-for-repo',
  'actions/get-workflow-run',
  'actions/re-run-workflow-failed-jobs',
  'checks/list-suites-for-ref',
  'checks/rerequest-suite',
  'checks/list-for-ref',
  'checks/create',
  'checks/update',
  'repos/get-collaborator-permission-level',
  'pulls/get',
  'pulls/list',
  'pulls/create',
  'pulls/update',
  'pulls/list-reviews',
  'pulls/list-commits',
  'pulls/merge',
  'pulls/merge-async',
  'pulls/get-merge-async-result',
  'pulls/update-branch',
  'git/get-ref',
  'git/list-matching-refs',
  'git/create-ref',
  'git/update-ref',
  'git/delete-ref',
  'repos/merge',
  'repos/get-branch',
  'repos/get-branch-rules',
  'repos/compare-commits',
  'repos/get-combined-status-for-ref',
  'repos/create-commit-status',
  'issues/list-comments',
  'issues/create-comment',
  'issues/update-comment',
  'issues/add-labels',
  'issues/remove-label',
] as const;

export type FakeOperation = (typeof FAKE_OPERATIONS)[number];

/** The events greenline subscribes to, every action of each. */
export const FAKE_WEBHOOK_EVENTS: readonly string[] = GITHUB_WEBHOOK_EVENTS;
