/**
 * Gitea and Forgejo webhook payloads into forge observations (both forges send the same payloads for
 * what greenline reads; Forgejo has no `status` event). Pure: nothing is read or written here;
 * app/observing/forge-observations.ts decides what each observation does to the queues. The event is the
 * `X-Gitea-Event` (or `X-Forgejo-Event`) header, which names the family of the event type
 * (`pull_request_label`, `pull_request_sync` … are all `pull_request`).
 *
 *   pull_request synchronized, edited (a new title, body or base branch: changes.ref.from), reopened
 *                                        → prTouched (its view is read again)
 *   pull_request opened                  → prLabels (a PR may be opened with the enqueueing label)
 *   pull_request closed                  → prClosed (merged or not: pull_request.merged)
 *   pull_request label_updated           → prLabel for each label Gitea says was added or removed
 *                                          (changes.added_labels, removed_labels), else prLabels with the
 *                                          PR's labels now (Forgejo and older Gitea tell only those);
 *                                          and prTouched (a queued PR's labels decide freeze exemptions)
 *   pull_request label_cleared           → prLabels with none, and prTouched
 *   push to a branch                     → branchPushed (a deleted branch, `after` all zeros, is no push)
 *   status (Gitea)                       → ciStatus of the commit
 *   issue_comment created on a PR        → prComment with its `/greenline …` (or `/trunk …`) command and
 *                                          its author (whose permission the forge's mayCommand reads)
 * Every other event and action is observed as nothing; a payload without a repository is no delivery.
 * The repository is named by the host of its web address (without a port: `HOST/OWNER/NAME` as
 * connected) and its owner's login and name.
 */
import { type ForgeDelivery, type ForgeObservation, parseQueueCommand } from '../observations.js';
import type { CiStatus } from '../port.js';

/** The events read here (X-Gitea-Event, X-Forgejo-Event): every other delivery is observed as nothing. */
export const GITEA_WEBHOOK_EVENTS: readonly string[] = ['pull_request', 'push', 'status', 'issue_comment'];

/** The fields of Gitea's payloads read here (modules/structs/hook.go), every one of them possibly missing. */
interface User {
  login?: string;
  username?: string;
}
interface Label {
  name?: string;
}
interface GiteaPayload {
  action?: string;
  repository?: { name?: string; html_url?: string; owner?: User | null } | null;
  sender?: User | null;
  pull_request?: {
    number?: number;
    merged?: boolean | null;
    base?: { ref?: string } | null;
    labels?: Label[] | null;
  } | null;
  changes?: { added_labels?: Label[] | null; removed_labels?: Label[] | null } | null;
  ref?: string;
  after?: string;
  sha?: string;
  context?: string;
  state?: string;
  target_url?: string | null;
  description?: string | null;
  is_pull?: boolean;
  issue?: { number?: number; pull_request?: unknown } | null;
  comment?: { body?: string; user?: User | null } | null;
}

/** A verified delivery as received: the event header's value and the payload, read defensively. */
export function readGiteaDelivery(event: string, payload: unknown): ForgeDelivery | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const p = payload as GiteaPayload;
  const repo = repoOf(p);
  return repo ? { repo, observations: observationsOf(event, p) } : null;
}

const loginOf = (u: User | null | undefined): string | undefined => u?.login || u?.username || undefined;

function repoOf(p: GiteaPayload): ForgeDelivery['repo'] | null {
  const r = p.repository;
  const owner = loginOf(r?.owner);
  if (!r?.name || !owner || !r.html_url) return null;
  try {
    return { host: new URL(r.html_url).hostname, owner, name: r.name };
  } catch {
    return null;
  }
}

function observationsOf(event: string, p: GiteaPayload): ForgeObservation[] {
  switch (event) {
    case 'pull_request':
      return pullRequest(p);
    case 'push':
      return p.ref?.startsWith('refs/heads/') && p.after && !/^0+$/.test(p.after)
        ? [{ kind: 'branchPushed', branch: p.ref.slice('refs/heads/'.length) }]
        : [];
    case 'status': {
      const state = ciStateOf(p.state);
      if (!p.sha || !p.context || !state) return [];
      return [
        {
          kind: 'ciStatus',
          sha: p.sha,
          status: {
            context: p.context,
            state,
            ...(p.target_url ? { url: p.target_url } : {}),
            ...(p.description ? { description: p.description } : {}),
          },
        },
      ];
    }
    case 'issue_comment':
      return comment(p);
    default:
      return [];
  }
}

function pullRequest(p: GiteaPayload): ForgeObservation[] {
  const pr = p.pull_request;
  const prNumber = pr?.number;
  if (!pr || typeof prNumber !== 'number') return [];
  const baseBranch = pr.base?.ref;
  const sender = loginOf(p.sender);
  const by = sender ? { sender } : {};
  const names = (labels: Label[] | null | undefined): string[] =>
    (labels ?? []).flatMap((l) => (l.name ? [l.name] : []));
  const labelsNow = (labels: string[]): ForgeObservation[] =>
    baseBranch ? [{ kind: 'prLabels', prNumber, baseBranch, labels, ...by }] : [];
  switch (p.action) {
    case 'label_updated': {
      const added = p.changes?.added_labels;
      const removed = p.changes?.removed_labels;
      const changed: ForgeObservation[] =
        !baseBranch || (!Array.isArray(added) && !Array.isArray(removed))
          ? labelsNow(names(pr.labels))
          : [
              ...names(added).map((label) => ({
                kind: 'prLabel' as const,
                prNumber,
                baseBranch,
                label,
                added: true,
                ...by,
              })),
              ...names(removed).map((label) => ({
                kind: 'prLabel' as const,
                prNumber,
                baseBranch,
                label,
                added: false,
                ...by,
              })),
            ];
      return [...changed, { kind: 'prTouched', prNumber }];
    }
    case 'label_cleared':
      return [...labelsNow([]), { kind: 'prTouched', prNumber }];
    case 'opened':
      return labelsNow(names(pr.labels));
    case 'closed':
      return [{ kind: 'prClosed', prNumber, merged: pr.merged === true }];
    case 'synchronized':
    case 'edited':
    case 'reopened':
      return [{ kind: 'prTouched', prNumber }];
    default:
      return [];
  }
}

function comment(p: GiteaPayload): ForgeObservation[] {
  const onPr = p.is_pull === true || (p.issue?.pull_request !== null && p.issue?.pull_request !== undefined);
  const prNumber = p.issue?.number;
  if (p.action !== 'created' || !onPr || typeof prNumber !== 'number' || !p.comment?.body) return [];
  const command = parseQueueCommand(p.comment.body);
  if (!command) return [];
  const author = loginOf(p.comment.user) ?? loginOf(p.sender);
  return [{ kind: 'prComment', prNumber, command, ...(author ? { author } : {}) }];
}

/** The forges' commit status states as CI states: `warning` counts as a failure (the check did not pass). */
const CI_STATES: Readonly<Record<string, CiStatus['state']>> = {
  pending: 'pending',
  success: 'success',
  failure: 'failure',
  error: 'error',
  warning: 'failure',
  skipped: 'skipped',
};

/** A Gitea or Forgejo commit status state as a CI state; null for a state the forges do not define. */
export const ciStateOf = (state: string | undefined): CiStatus['state'] | null =>
  state !== undefined && Object.hasOwn(CI_STATES, state) ? CI_STATES[state]! : null;
