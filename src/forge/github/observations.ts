/**
 * GitHub webhook payloads (typed by @octokit/webhooks-types) into forge observations. Pure: nothing
 * is read or written here; app/observing/forge-observations.ts decides what each observation does to the queues.
 *
 *   pull_request synchronize, edited, ready_for_review, reopened → prTouched (its view is read again:
 *                                                   the payload may be older than GitHub's current one)
 *   pull_request closed                  → prClosed (merged or not)
 *   pull_request converted_to_draft      → prConvertedToDraft
 *   pull_request labeled / unlabeled     → prLabel, and prTouched (a queued PR's labels are read again)
 *   push to a branch                     → branchPushed (a deleted branch is no push)
 *   check_run (any action), status       → ciStatus of the commit
 *   workflow_run, check_suite completed  → checksCompleted; concluded `startup_failure` or
 *                                          `action_required` (its checks could not run): checksBlocked
 *   issue_comment created on a PR        → prComment with its `/greenline …` (or `/trunk …`) command,
 *                                          its author and author_association, unless a bot wrote it
 * Every other event and action is observed as nothing; a payload without a repository is no delivery.
 * `installation` and `installation_repositories` deliveries are read apart (installationChangeOf): they
 * change the App's access to repositories, not a repository.
 */
import type { WebhookEventMap } from '@octokit/webhooks-types';
import { type ForgeDelivery, type ForgeObservation, parseQueueCommand } from '../observations.js';
import type { CiStatus } from '../port.js';
import { checkRunState } from './required-checks.js';

/** The events read here (X-GitHub-Event): every other delivery is observed as nothing. */
export const GITHUB_WEBHOOK_EVENTS: readonly string[] = [
  'pull_request',
  'push',
  'check_run',
  'check_suite',
  'workflow_run',
  'status',
  'issue_comment',
  'installation',
  'installation_repositories',
];

/** A delivery's event name (X-GitHub-Event) with its payload. */
export type GitHubWebhookEvent = {
  [K in keyof WebhookEventMap]: { name: K; payload: WebhookEventMap[K] };
}[keyof WebhookEventMap];

/**
 * A verified delivery as received: its payload is GitHub's for the event name (the signature vouches
 * for that), read defensively all the same, a field missing being observed as nothing.
 */
export function readGitHubDelivery(event: string, payload: unknown): ForgeDelivery | null {
  return gitHubObservations({ name: event, payload } as GitHubWebhookEvent);
}

/** The repository a delivery is about and what it tells of it; null when it names no repository. */
export function gitHubObservations(event: GitHubWebhookEvent): ForgeDelivery | null {
  const repo = repoOf(event.payload);
  return repo ? { repo, observations: observationsOf(event) } : null;
}

function repoOf(payload: GitHubWebhookEvent['payload']): ForgeDelivery['repo'] | null {
  const r = 'repository' in payload ? payload.repository : undefined;
  if (!r?.name || !r.owner?.login || !r.html_url) return null;
  try {
    return { host: new URL(r.html_url).host, owner: r.owner.login, name: r.name };
  } catch {
    return null;
  }
}

function observationsOf(event: GitHubWebhookEvent): ForgeObservation[] {
  switch (event.name) {
    case 'pull_request':
      return pullRequest(event.payload);
    case 'push': {
      const p = event.payload;
      return p.ref?.startsWith('refs/heads/') && !p.deleted
        ? [{ kind: 'branchPushed', branch: p.ref.slice('refs/heads/'.length) }]
        : [];
    }
    case 'check_run': {
      const c = event.payload.check_run;
      if (!c) return [];
      const url = c.details_url ?? c.html_url;
      return [
        {
          kind: 'ciStatus',
          sha: c.head_sha,
          status: { context: c.name, state: checkRunState(c.status, c.conclusion), ...(url ? { url } : {}) },
        },
      ];
    }
    case 'check_suite': {
      const p = event.payload;
      if (p.action !== 'completed' || !p.check_suite) return [];
      const sha = p.check_suite.head_sha;
      const blocked = blockedSuite(p.check_suite.conclusion, p.check_suite.app?.name);
      return [blocked ? { kind: 'checksBlocked', sha, detail: blocked } : { kind: 'checksCompleted', sha }];
    }
    case 'workflow_run': {
      const p = event.payload;
      if (p.action !== 'completed' || !p.workflow_run) return [];
      const sha = p.workflow_run.head_sha;
      const blocked = blockedSuite(p.workflow_run.conclusion, 'GitHub Actions');
      return [blocked ? { kind: 'checksBlocked', sha, detail: blocked } : { kind: 'checksCompleted', sha }];
    }
    case 'status': {
      const p = event.payload;
      if (!p.sha || !p.context || !isCiState(p.state)) return [];
      return [
        {
          kind: 'ciStatus',
          sha: p.sha,
          status: {
            context: p.context,
            state: p.state,
            ...(p.target_url ? { url: p.target_url } : {}),
            ...(p.description ? { description: p.description } : {}),
          },
        },
      ];
    }
    case 'issue_comment':
      return comment(event.payload);
    default:
      return [];
  }
}

/**
 * Why a completed check suite's checks never ran, in words; null when they ran. `startup_failure`: the
 * workflow could not start (a broken workflow file); `action_required`: its runs wait for someone to
 * approve them (a workflow from a fork, a first-time contributor).
 */
function blockedSuite(conclusion: string | null | undefined, app: string | null | undefined): string | null {
  const what = app === 'GitHub Actions' || !app ? 'the GitHub Actions workflow' : `the checks of ${app}`;
  switch (conclusion) {
    case 'startup_failure':
      return `${what} could not start (startup_failure): check the workflow file on the test branch (GitHub shows the error on the workflow run)`;
    case 'action_required':
      return `${what} did not run (action_required): its runs wait for approval in the repository's Actions tab; allow workflows to run on greenline's branches`;
    default:
      return null;
  }
}

function pullRequest(p: WebhookEventMap['pull_request']): ForgeObservation[] {
  const pr = p.pull_request;
  if (!pr) return [];
  const prNumber = pr.number;
  switch (p.action) {
    case 'labeled':
    case 'unlabeled': {
      const label = p.label?.name;
      // The label may submit or cancel (prLabel); a queued PR's labels also decide freeze exemptions (prTouched).
      return label
        ? [
            {
              kind: 'prLabel',
              prNumber,
              baseBranch: pr.base.ref,
              label,
              added: p.action === 'labeled',
              ...(p.sender?.login ? { sender: p.sender.login } : {}),
            },
            { kind: 'prTouched', prNumber },
          ]
        : [];
    }
    case 'closed':
      return [{ kind: 'prClosed', prNumber, merged: pr.merged === true }];
    case 'converted_to_draft':
      return [{ kind: 'prConvertedToDraft', prNumber }];
    case 'synchronize':
    case 'edited':
    case 'ready_for_review':
    case 'reopened':
      return [{ kind: 'prTouched', prNumber }];
    default:
      return [];
  }
}

function comment(p: WebhookEventMap['issue_comment']): ForgeObservation[] {
  if (p.action !== 'created' || !p.issue?.pull_request || !p.comment?.body) return [];
  if (p.comment.user?.type === 'Bot' || p.sender?.type === 'Bot') return [];
  const command = parseQueueCommand(p.comment.body);
  if (!command) return [];
  const author = p.comment.user?.login;
  const association = p.comment.author_association;
  return [
    {
      kind: 'prComment',
      prNumber: p.issue.number,
      command,
      ...(author ? { author } : {}),
      ...(association ? { authorStanding: association } : {}),
    },
  ];
}

/** What an `installation*` delivery says changed: the App's installation, and the repositories it names. */
export interface InstallationChange {
  installationId: number;
  /** `owner/name` of each repository the delivery names (given, added or removed). */
  repositories: string[];
}

/**
 * The change an `installation` delivery (created, deleted, suspend, unsuspend,
 * new_permissions_accepted) or `installation_repositories` delivery (added, removed) tells of the
 * App's installation; null for every other delivery. Such deliveries name no single repository: they
 * concern the access the forge keeps (GitHubClients.forgetInstallation), not the queues.
 */
export function installationChangeOf(event: string, payload: unknown): InstallationChange | null {
  if (event !== 'installation' && event !== 'installation_repositories') return null;
  // Read defensively, as readGitHubDelivery reads (the fields of both events' payloads).
  type Named = { full_name?: string } | null;
  const p = payload as {
    installation?: { id?: unknown };
    repositories?: Named[];
    repositories_added?: Named[];
    repositories_removed?: Named[];
  };
  const id = p.installation?.id;
  if (typeof id !== 'number') return null;
  const named = [...(p.repositories ?? []), ...(p.repositories_added ?? []), ...(p.repositories_removed ?? [])];
  return { installationId: id, repositories: named.flatMap((r) => (r?.full_name ? [r.full_name] : [])) };
}

const isCiState = (s: unknown): s is CiStatus['state'] =>
  s === 'pending' || s === 'success' || s === 'failure' || s === 'error';
