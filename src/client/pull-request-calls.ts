/** The calls of pull requests and their testing (docs/api.md "Pull requests"). */
import { type CallOptions, Transport } from './transport.js';
import type {
  EmptyResponse,
  GetSubmittedPullRequestRequest,
  GetSubmittedPullRequestsRequest,
  ListPullRequestsRequest,
  ListPullRequestsResponse,
  ListTestingResultsRequest,
  PullRequestRequest,
  PullRequestTry,
  SetImpactedTargetsRequest,
  SubmitPullRequestRequest,
  SubmittedPullRequest,
  SubmittedPullRequests,
  TestingDetails,
  TestingDetailsRequest,
  TestingResults,
  TryBuild,
  TryPullRequestRequest,
} from './types.js';

export class PullRequestCalls extends Transport {
  /** Submits a PR, or updates the priority and noBatch of one already in the queue. */
  submitPullRequest(body: SubmitPullRequestRequest, options?: CallOptions): Promise<EmptyResponse> {
    return this.json('submitPullRequest', body, options);
  }

  /** @deprecated Trunk's older name of submitPullRequest; same body and answer. */
  queuePullRequest(body: SubmitPullRequestRequest, options?: CallOptions): Promise<EmptyResponse> {
    return this.json('queuePullRequest', body, options);
  }

  cancelPullRequest(body: PullRequestRequest, options?: CallOptions): Promise<EmptyResponse> {
    return this.json('cancelPullRequest', body, options);
  }

  restartTestsOnPullRequest(body: PullRequestRequest, options?: CallOptions): Promise<EmptyResponse> {
    return this.json('restartTestsOnPullRequest', body, options);
  }

  /** Starts a try build of a PR: tested with its target by the queue's CI, not queued. */
  tryPullRequest(body: TryPullRequestRequest, options?: CallOptions): Promise<TryBuild> {
    return this.json('tryPullRequest', body, options);
  }

  /** The PR's latest try build; `try` is null when it never had one. */
  getPullRequestTry(body: PullRequestRequest, options?: CallOptions): Promise<PullRequestTry> {
    return this.json('getPullRequestTry', body, options);
  }

  getSubmittedPullRequest(body: GetSubmittedPullRequestRequest, options?: CallOptions): Promise<SubmittedPullRequest> {
    return this.json('getSubmittedPullRequest', body, options);
  }

  /** Up to 50 PRs at once; the numbers never submitted are in `notFound`. */
  getSubmittedPullRequests(
    body: GetSubmittedPullRequestsRequest,
    options?: CallOptions,
  ): Promise<SubmittedPullRequests> {
    return this.json('getSubmittedPullRequests', body, options);
  }

  listPullRequests(body: ListPullRequestsRequest, options?: CallOptions): Promise<ListPullRequestsResponse> {
    return this.json('listPullRequests', body, options);
  }

  setImpactedTargets(body: SetImpactedTargetsRequest, options?: CallOptions): Promise<EmptyResponse> {
    return this.json('setImpactedTargets', body, options);
  }

  getMergeQueueTestingDetails(body: TestingDetailsRequest, options?: CallOptions): Promise<TestingDetails> {
    return this.json('getMergeQueueTestingDetails', body, options);
  }

  /** Finished testing per PR and run, newest first, paged with offset/take. */
  listMergeQueueTestingResults(body: ListTestingResultsRequest, options?: CallOptions): Promise<TestingResults> {
    return this.json('listMergeQueueTestingResults', body, options);
  }
}
