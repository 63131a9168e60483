/**
 * GitLab webhook payloads into forge observations. Pure: nothing is read or written here. The event
 * is the `X-Gitlab-Event` header:
 *
 *   Merge Request Hook open              → prLabels (an MR may be opened with the enqueueing label)
 *   Merge Request Hook update, reopen    → prLabel for each label added or removed (changes.labels),
 *                                          prComment `merge` by whoever assigned the MR to greenline's
 *                                          own user (changes.assignees; the user given), and prTouched
 *                                          (head, title, draft, target … are read again)
 *   Merge Request Hook close, merge      → prClosed (merged or not)
 *   Note Hook on a merge request         → prComment with its `/greenline …` (or `/trunk …`) command
 *                                          and its author (whose role mayCommand reads)
 *   Push Hook to a branch                → branchPushed (a deleted branch, `after` all zeros, is no push)
 *   Pipeline Hook                        → ciStatus `gitlab/pipeline` of the pipeline's sha
 * Every other event and action is observed as nothing; a payload without a project is no delivery.
 * The repository is named by the host of the project's web address and its path with namespace
 * (`group/sub` and `project`).
 */
import { type ForgeDelivery, type ForgeObservation, parseQueueCommand } from '../observations.js';
import { ciStateOf, PIPELINE_CONTEXT } from './ci.js';

export const GITLAB_WEBHOOK_EVENTS: readonly string[] = [
  'Merge Request Hook',
  'Note Hook',
  'Push Hook',
  'Pipeline Hook',
];

interface Label {
  title?: string;
  name?: string;
}

interface User {
  username?: string;
}

interface GitlabPayload {
  project?: { web_url?: string; path_with_namespace?: string } | null;
  user?: { username?: string } | null;
  user_username?: string;
  object_attributes?: {
    iid?: number;
    action?: string;
    target_branch?: string;
    labels?: Label[] | null;
    note?: string;
    noteable_type?: string;
    system?: boolean;
    sha?: string;
    status?: string;
    url?: string;
  } | null;
  labels?: Label[] | null;
  changes?: {
    labels?: { previous?: Label[] | null; current?: Label[] | null } | null;
    assignees?: { previous?: User[] | null; current?: User[] | null } | null;
  } | null;
  merge_request?: { iid?: number } | null;
  ref?: string;
  after?: string;
}

/**
 * The delivery as observations; `self` is greenline's own username on the delivery's server (an MR
 * assigned to it is a merge command), null when not known.
 */
export function readGitlabDelivery(event: string, payload: unknown, self: string | null = null): ForgeDelivery | null {
  if (typeof payload !== 'object' || payload === null) return null;
  const p = payload as GitlabPayload;
  const repo = repoOf(p);
  return repo ? { repo, observations: observationsOf(event, p, self) } : null;
}

/**
 * The server of a merge request delivery that changed the MR's assignees (its project's web address
 * without the project's path), where greenline's own username is to be learned; null for any other.
 */
export function assignedOn(event: string, payload: unknown): string | null {
  const p = payload as GitlabPayload | null;
  const web = p?.project?.web_url;
  const path = p?.project?.path_with_namespace;
  if (event !== 'Merge Request Hook' || !p?.changes?.assignees || !web || !path) return null;
  return web.endsWith(`/${path}`) ? web.slice(0, -path.length - 1) : null;
}

function repoOf(p: GitlabPayload): ForgeDelivery['repo'] | null {
  const parts = p.project?.path_with_namespace?.split('/') ?? [];
  if (parts.length < 2 || !p.project?.web_url) return null;
  try {
    return {
      host: new URL(p.project.web_url).hostname,
      owner: parts.slice(0, -1).join('/'),
      name: parts[parts.length - 1]!,
    };
  } catch {
    return null;
  }
}

const names = (labels: Label[] | null | undefined): string[] =>
  (labels ?? []).flatMap((l) => ((l.title ?? l.name) ? [(l.title ?? l.name)!] : []));

function observationsOf(event: string, p: GitlabPayload, self: string | null): ForgeObservation[] {
  const a = p.object_attributes;
  switch (event) {
    case 'Merge Request Hook':
      return mergeRequest(p, self);
    case 'Note Hook': {
      const prNumber = p.merge_request?.iid;
      if (a?.noteable_type !== 'MergeRequest' || a.system || typeof prNumber !== 'number' || !a.note) return [];
      if (a.action !== undefined && a.action !== 'create') return [];
      const command = parseQueueCommand(a.note);
      const author = p.user?.username;
      return command ? [{ kind: 'prComment', prNumber, command, ...(author ? { author } : {}) }] : [];
    }
    case 'Push Hook':
      return p.ref?.startsWith('refs/heads/') && p.after && !/^0+$/.test(p.after)
        ? [{ kind: 'branchPushed', branch: p.ref.slice('refs/heads/'.length) }]
        : [];
    case 'Pipeline Hook': {
      const state = ciStateOf(a?.status);
      if (!a?.sha || !state) return [];
      return [
        {
          kind: 'ciStatus',
          sha: a.sha,
          status: { context: PIPELINE_CONTEXT, state, ...(a.url ? { url: a.url } : {}) },
        },
      ];
    }
    default:
      return [];
  }
}

function mergeRequest(p: GitlabPayload, self: string | null): ForgeObservation[] {
  const a = p.object_attributes;
  const prNumber = a?.iid;
  if (!a || typeof prNumber !== 'number') return [];
  const baseBranch = a.target_branch;
  const sender = p.user?.username;
  const by = sender ? { sender } : {};
  switch (a.action) {
    case 'open':
      return baseBranch ? [{ kind: 'prLabels', prNumber, baseBranch, labels: names(a.labels ?? p.labels), ...by }] : [];
    case 'close':
      return [{ kind: 'prClosed', prNumber, merged: false }];
    case 'merge':
      return [{ kind: 'prClosed', prNumber, merged: true }];
    case 'update':
    case 'reopen': {
      const change = p.changes?.labels;
      const before = names(change?.previous);
      const after = names(change?.current);
      const labels: ForgeObservation[] =
        change && baseBranch
          ? [
              ...after
                .filter((l) => !before.includes(l))
                .map((label) => ({ kind: 'prLabel' as const, prNumber, baseBranch, label, added: true, ...by })),
              ...before
                .filter((l) => !after.includes(l))
                .map((label) => ({ kind: 'prLabel' as const, prNumber, baseBranch, label, added: false, ...by })),
            ]
          : [];
      const assignees = p.changes?.assignees;
      const assigned =
        self !== null &&
        (assignees?.current ?? []).some((u) => u.username === self) &&
        !(assignees?.previous ?? []).some((u) => u.username === self);
      const command: ForgeObservation[] = assigned
        ? [
            {
              kind: 'prComment',
              prNumber,
              command: { kind: 'merge', noBatch: false },
              ...(sender ? { author: sender } : {}),
            },
          ]
        : [];
      return [...labels, ...command, { kind: 'prTouched', prNumber }];
    }
    default:
      return [];
  }
}
