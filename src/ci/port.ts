/**
 * The CI port: what the service asks of a CI (start, cancel, logs) and the statuses a CI reports. The
 * adapters are folders beside this file (src/ci/command/: the built-in runner); external CI reports
 * through the API instead.
 */
import type { CiStatus, RepoBinding } from '../forge/port.js';

/** A status reported for a test run, by the built-in runner or by external CI through the API. */
export interface CiStatusReport {
  runId: string;
  status: CiStatus;
}

/** Where CI adapters send statuses; the service decides the run's outcome from the required ones. */
export type CiStatusSink = (report: CiStatusReport) => void | Promise<void>;

export interface CiStartRequest {
  repo: RepoBinding;
  runId: string;
  branch: string;
  sha: string;
  targetBranch: string;
  prNumbers: number[];
  timeoutMinutes: number;
  /** 0 for the first run of the test commit, n for its n-th retry (`retryCi`); absent = 0. */
  attempt?: number;
  /**
   * The commit the run's own PRs were merged onto and the paths changed from it to `sha`; absent
   * when the forge cannot compare commits.
   */
  changes?: { baseSha: string; files: string[] };
}

export interface CiPort {
  /** Start CI for a test commit. Idempotent per runId. Statuses arrive through the adapter's CiStatusSink. */
  start(req: CiStartRequest): Promise<void>;
  /** Cancel a run; cancelling a finished or unknown run is success. */
  cancel(runId: string): Promise<void>;
  /** The run's log, when this adapter keeps one. */
  getLog?(runId: string): Promise<string | null>;
  /**
   * Removes what an earlier process of this instance (killed, crashed) left behind and no run of this
   * process uses: work trees, processes still running. Called at start-up and when queues are taken
   * over. Adapters that leave nothing behind leave it out.
   */
  cleanUp?(): Promise<void>;
}
