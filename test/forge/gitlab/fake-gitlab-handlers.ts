/**
 * The fake GitLab's answers by operation id (fake-gitlab-api.ts), shaped as GitLab's entities
 * (APIEntitiesMergeRequest, APIEntitiesCommitStatus …) and refusing as GitLab documents it.
 */
import { git } from '../../../src/git/git.js';
import type { FakeGitlabApi, FakeJob, FakeMr, FakeNote, FakePipeline, JobState } from './fake-gitlab-api.js';

type Json = Record<string, unknown>;

export interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

interface Call {
  params: Record<string, string>;
  query: URLSearchParams;
  body: Json;
}

export const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

const ok = (body: unknown): Answer => ({ status: 200, body });
const refuse = (status: number, message: string): Answer => ({ status, body: { message } });
const NOT_FOUND = refuse(404, '404 Not found');

export const DRAFT = /^\s*(\[draft\]|\(draft\)|draft:|draft\s-\s|draft\s)/i;

/** States a commit status may be posted with, and the event GitLab names the transition to it. */
const EVENT_OF: Record<string, string> = {
  pending: 'enqueue',
  running: 'run',
  success: 'success',
  failed: 'drop',
  canceled: 'cancel',
  skipped: 'skip',
};

export const HANDLERS: Record<string, (f: FakeGitlabApi, call: Call) => Answer | Promise<Answer>> = {
  getApiV4User: (f) => ok(userJson(f, f.tokenUser)),
  getApiV4Users: (f, { query }) => {
    const name = query.get('username');
    const known = name && (f.members.has(name) || ['ada', 'rex'].includes(name));
    return ok(known ? [userJson(f, name)] : []);
  },
  getApiV4ProjectsId: (f) => ok(projectJson(f)),
  getApiV4ProjectsIdProtectedBranches: (f) => ok(f.protectedBranches.map((p) => protectedJson(f, p.name))),
  getApiV4ProjectsIdProtectedBranchesName: (f, { params }) =>
    f.protectedBranches.some((p) => p.name === params.name) ? ok(protectedJson(f, params.name!)) : NOT_FOUND,
  getApiV4ProjectsIdMembersAllUserId: (f, { params }) => {
    const username = f.usernameOf(Number(params.user_id));
    const level = username ? f.members.get(username) : undefined;
    return username && level !== undefined ? ok({ ...userJson(f, username), access_level: level }) : NOT_FOUND;
  },
  getApiV4ProjectsIdMergeRequests: async (f, { query }) => {
    const state = query.get('state') ?? 'all';
    const list = [...f.mrs.values()].filter((m) => state === 'all' || m.state === state);
    return ok(await Promise.all(list.map((m) => mrJson(f, m))));
  },
  getApiV4ProjectsIdMergeRequestsMergeRequestIid: async (f, { params }) => {
    const mr = f.mrs.get(Number(params.merge_request_iid));
    return mr ? ok(await mrJson(f, mr)) : NOT_FOUND;
  },
  putApiV4ProjectsIdMergeRequestsMergeRequestIid: async (f, { params, body }) => {
    const mr = f.mrs.get(Number(params.merge_request_iid));
    if (!mr) return NOT_FOUND;
    if (Object.keys(body).length === 0) return refuse(400, '400 Bad request - at least one parameter must be given');
    const names = (v: unknown): string[] =>
      (Array.isArray(v) ? v.map(String) : String(v ?? '').split(',')).map((s) => s.trim()).filter(Boolean);
    if (body.labels !== undefined) mr.labels = names(body.labels);
    for (const l of names(body.add_labels)) if (!mr.labels.includes(l)) mr.labels.push(l);
    mr.labels = mr.labels.filter((l) => !names(body.remove_labels).includes(l));
    for (const l of mr.labels) f.label(l);
    if (typeof body.title === 'string') mr.title = body.title;
    if (typeof body.target_branch === 'string') mr.target_branch = body.target_branch;
    if (body.state_event === 'close' && mr.state === 'opened') f.closeMr(mr.iid);
    if (body.state_event === 'reopen' && mr.state === 'closed') mr.state = 'opened';
    return ok(await mrJson(f, mr));
  },
  putApiV4ProjectsIdMergeRequestsMergeRequestIidMerge: (f, { params, body }) =>
    merge(f, Number(params.merge_request_iid), body),
  getApiV4ProjectsIdMergeRequestsNoteableIdNotes: (f, { params }) => {
    const iid = Number(params.noteable_id);
    if (!f.mrs.has(iid)) return NOT_FOUND;
    return ok(
      f.notes
        .filter((n) => n.iid === iid)
        .reverse()
        .map((n) => noteJson(f, n)),
    );
  },
  postApiV4ProjectsIdMergeRequestsNoteableIdNotes: (f, { params, body }) => {
    const iid = Number(params.noteable_id);
    if (!f.mrs.has(iid)) return NOT_FOUND;
    return { status: 201, body: noteJson(f, f.addNote(iid, String(body.body), f.tokenUser)) };
  },
  putApiV4ProjectsIdMergeRequestsNoteableIdNotesNoteId: (f, { params, body }) => {
    const note = f.notes.find((n) => n.id === Number(params.note_id) && n.iid === Number(params.noteable_id));
    if (!note) return NOT_FOUND;
    if (note.author !== f.tokenUser) return refuse(403, '403 Forbidden');
    Object.assign(note, { body: String(body.body ?? note.body), updated_at: iso(f.now()) });
    return ok(noteJson(f, note));
  },
  getApiV4ProjectsIdLabels: (f) => ok(f.labels.map((l) => ({ ...l, description: null, text_color: '#FFFFFF' }))),
  postApiV4ProjectsIdStatusesSha: async (f, { params, body }) => postStatus(f, params.sha!, body),
  getApiV4ProjectsIdRepositoryCommitsShaStatuses: (f, { params, query }) => {
    const ref = query.get('ref') ?? f.defaultBranch;
    const all = query.get('all') === 'true';
    const jobs = f.jobs.filter((j) => j.sha === params.sha && j.ref === ref && (all || !j.retried));
    return ok(jobs.map((j) => jobJson(f, j)));
  },
  getApiV4ProjectsIdPipelines: (f, { query }) => {
    const sha = query.get('sha');
    const ref = query.get('ref');
    const list = f.pipelines.filter((p) => (!sha || p.sha === sha) && (!ref || p.ref === ref)).reverse();
    return ok(list.map((p) => pipelineJson(f, p)));
  },
  getApiV4ProjectsIdPipelinesPipelineId: (f, { params }) => {
    const p = f.pipelines.find((x) => x.id === Number(params.pipeline_id));
    return p ? ok(pipelineJson(f, p)) : NOT_FOUND;
  },
  postApiV4ProjectsIdPipelinesPipelineIdRetry: (f, { params }) => {
    const p = f.pipelines.find((x) => x.id === Number(params.pipeline_id));
    if (!p) return NOT_FOUND;
    // Retries the failed or canceled jobs: each is replaced by a new job, pending; none: no effect.
    for (const job of f.latestJobs(p.id))
      if (job.status === 'failed' || job.status === 'canceled') {
        job.retried = true;
        f.addJob(p, job.name, 'pending', f.tokenUser);
      }
    return { status: 201, body: pipelineJson(f, p) };
  },
};

/** `PUT …/merge`, as GitLab merges: its merge checks first, then the project's merge method. */
async function merge(f: FakeGitlabApi, iid: number, body: Json): Promise<Answer> {
  const mr = f.mrs.get(iid);
  if (!mr) return NOT_FOUND;
  const level = f.members.get(f.tokenUser) ?? 0;
  const rule = f.protectedBranches.find((p) => p.name === mr.target_branch);
  if (level < (rule ? rule.merge : 30)) return refuse(401, '401 Unauthorized');
  const head = await f.headOf(iid);
  const status = await detailedStatus(f, mr);
  if (
    mr.state !== 'opened' ||
    ['draft_status', 'ci_must_pass', 'ci_still_running', 'checking', 'unchecked'].includes(status)
  )
    return refuse(405, '405 Method Not Allowed');
  if (typeof body.sha === 'string' && body.sha !== head) return refuse(409, 'SHA does not match HEAD of source branch');
  if (status !== 'mergeable') return refuse(422, 'Branch cannot be merged');
  const squash =
    f.settings.squash_option === 'always' ||
    (f.settings.squash_option !== 'never' && (body.squash === true || (body.squash === undefined && mr.squash)));
  const target = (await f.repo.branchSha(mr.target_branch))!;
  const made = await f.repo.merge(f.settings.merge_method, squash, target, head, `${mr.title}`);
  if (made === 'conflict' || made === 'need_rebase') return refuse(422, 'Branch cannot be merged');
  await f.repo.setBranch(mr.target_branch, made);
  const squashSha = squash ? (f.settings.merge_method === 'ff' ? made : (await parents(f, made))[1]!) : null;
  f.markMerged(mr, f.tokenUser, f.settings.merge_method === 'ff' ? null : made, squashSha);
  return ok(await mrJson(f, mr));
}

async function parents(f: FakeGitlabApi, sha: string): Promise<string[]> {
  return (await git(['rev-list', '--parents', '-n', '1', sha], { cwd: f.repo.bare })).trim().split(' ').slice(1);
}

/** `detailed_merge_status` as GitLab's merge checks name the first that fails. */
export async function detailedStatus(f: FakeGitlabApi, mr: FakeMr): Promise<string> {
  if (mr.state !== 'opened') return 'not_open';
  if (mr.checking > 0) {
    mr.checking--;
    return 'checking';
  }
  if (DRAFT.test(mr.title)) return 'draft_status';
  const head = await f.headOf(mr.iid);
  const target = await f.repo.branchSha(mr.target_branch);
  if (!target) return 'commits_status';
  if (!(await f.repo.mergeTree(target, head))) return 'conflict';
  if (f.settings.only_allow_merge_if_pipeline_succeeds) {
    const p = f.pipelines
      .slice()
      .reverse()
      .find((x) => x.sha === head);
    const state = p ? f.pipelineStatus(p.id) : null;
    if (state === 'running') return 'ci_still_running';
    if (state !== 'success' && !(state === 'skipped' && f.settings.allow_merge_on_skipped_pipeline))
      return 'ci_must_pass';
  }
  if (f.settings.merge_method !== 'merge' && !(await f.repo.isAncestor(target, head))) return 'need_rebase';
  return 'mergeable';
}

/** `POST /statuses/:sha`: a job of the external pipeline of the sha and ref, made or moved on. */
async function postStatus(f: FakeGitlabApi, sha: string, body: Json): Promise<Answer> {
  if (!(await f.repo.hasCommit(sha))) return refuse(404, '404 Commit Not Found');
  if (f.statusUpdatesInFlight > 0) {
    f.statusUpdatesInFlight--;
    return refuse(409, 'Another update to this commit status is in progress');
  }
  const state = String(body.state) as JobState;
  const name = String(body.name ?? body.context ?? 'default');
  const ref = typeof body.ref === 'string' ? body.ref : await refOf(f, sha);
  if (!ref) return refuse(400, '400 Bad request - The ref of the commit must be given');
  let job = f.jobs
    .slice()
    .reverse()
    .find((j) => j.sha === sha && j.ref === ref && j.name === name && !j.retried);
  if (job && job.status === state)
    return refuse(400, `Cannot transition status via :${EVENT_OF[state]} from :${job.status}`);
  if (!job) job = f.addJob(f.pipelineOf(sha, ref, 'external'), name, state, f.tokenUser);
  Object.assign(job, {
    status: state,
    description: String(body.description ?? ''),
    target_url: String(body.target_url ?? ''),
  });
  return { status: 201, body: jobJson(f, job) };
}

/** The branch a commit is the tip of (GitLab takes the first branch holding it when no ref is given). */
async function refOf(f: FakeGitlabApi, sha: string): Promise<string | null> {
  for (const [ref, at] of await f.repo.allRefs()) if (at === sha && ref.startsWith('refs/heads/')) return ref.slice(11);
  return null;
}

// ---- entities --------------------------------------------------------------------------------------------

export function userJson(f: FakeGitlabApi, username: string): Json {
  const id = f.userId(username);
  return {
    id,
    username,
    name: username,
    state: 'active',
    locked: false,
    avatar_url: `${f.url}/uploads/-/system/user/avatar/${id}/avatar.png`,
    web_url: `${f.url}/${username}`,
  };
}

export function projectJson(f: FakeGitlabApi): Json {
  const level = f.members.get(f.tokenUser) ?? null;
  return {
    id: f.projectId,
    name: f.name,
    path: f.name,
    path_with_namespace: f.fullPath,
    name_with_namespace: f.fullPath.split('/').join(' / '),
    default_branch: f.defaultBranch,
    web_url: `${f.url}/${f.fullPath}`,
    http_url_to_repo: `${f.url}/${f.fullPath}.git`,
    visibility: 'private',
    merge_method: f.settings.merge_method,
    squash_option: f.settings.squash_option,
    only_allow_merge_if_pipeline_succeeds: f.settings.only_allow_merge_if_pipeline_succeeds,
    allow_merge_on_skipped_pipeline: f.settings.allow_merge_on_skipped_pipeline,
    only_allow_merge_if_all_discussions_are_resolved: false,
    permissions: {
      project_access: level === null ? null : { access_level: level },
      group_access: null,
    },
  };
}

function protectedJson(f: FakeGitlabApi, name: string): Json {
  const p = f.protectedBranches.find((x) => x.name === name)!;
  const access = (level: number, id: number) => [
    {
      id,
      access_level: level,
      access_level_description: level === 0 ? 'No one' : level >= 40 ? 'Maintainers' : 'Developers + Maintainers',
    },
  ];
  return {
    id: 7,
    name: p.name,
    push_access_levels: access(p.push, 71),
    merge_access_levels: access(p.merge, 72),
    allow_force_push: p.allow_force_push,
    code_owner_approval_required: false,
  };
}

export async function mrJson(f: FakeGitlabApi, mr: FakeMr): Promise<Json> {
  const head = await f.headOf(mr.iid);
  const target = (await f.repo.branchSha(mr.target_branch)) ?? head;
  const status = await detailedStatus(f, mr);
  const web = `${f.url}/${f.fullPath}/-/merge_requests/${mr.iid}`;
  const pipeline = f.pipelines
    .slice()
    .reverse()
    .find((p) => p.sha === head);
  return {
    id: 5000 + mr.iid,
    iid: mr.iid,
    project_id: f.projectId,
    title: mr.title,
    description: mr.description,
    state: mr.state,
    created_at: '2026-01-05T09:00:00Z',
    updated_at: iso(f.now()),
    merge_user: mr.merge_user ? userJson(f, mr.merge_user) : null,
    merged_by: mr.merge_user ? userJson(f, mr.merge_user) : null,
    merged_at: mr.merged_at,
    closed_at: mr.closed_at,
    target_branch: mr.target_branch,
    source_branch: mr.source_branch,
    author: userJson(f, mr.author),
    assignees: [],
    reviewers: [],
    source_project_id: f.projectId,
    target_project_id: f.projectId,
    labels: mr.labels,
    draft: DRAFT.test(mr.title),
    work_in_progress: DRAFT.test(mr.title),
    merge_when_pipeline_succeeds: false,
    merge_status:
      status === 'mergeable'
        ? 'can_be_merged'
        : status === 'conflict'
          ? 'cannot_be_merged'
          : status === 'checking'
            ? 'checking'
            : 'can_be_merged',
    detailed_merge_status: status,
    sha: head,
    merge_commit_sha: mr.merge_commit_sha,
    squash_commit_sha: mr.squash_commit_sha,
    squash: mr.squash,
    squash_on_merge: f.settings.squash_option === 'always' || (f.settings.squash_option !== 'never' && mr.squash),
    has_conflicts: status === 'conflict',
    blocking_discussions_resolved: true,
    web_url: web,
    references: { short: `!${mr.iid}`, relative: `!${mr.iid}`, full: `${f.fullPath}!${mr.iid}` },
    diff_refs: { base_sha: target, head_sha: head, start_sha: target },
    head_pipeline: pipeline ? pipelineJson(f, pipeline) : null,
    merge_error: null,
    user: { can_merge: (f.members.get(f.tokenUser) ?? 0) >= 30 },
  };
}

function noteJson(f: FakeGitlabApi, n: FakeNote): Json {
  return {
    id: n.id,
    type: null,
    body: n.body,
    author: userJson(f, n.author),
    created_at: n.created_at,
    updated_at: n.updated_at,
    system: n.system,
    noteable_id: 5000 + n.iid,
    noteable_type: 'MergeRequest',
    noteable_iid: n.iid,
    project_id: f.projectId,
    resolvable: false,
    confidential: false,
    internal: false,
  };
}

export function jobJson(f: FakeGitlabApi, j: FakeJob): Json {
  return {
    id: j.id,
    sha: j.sha,
    ref: j.ref,
    status: j.status,
    name: j.name,
    target_url: j.target_url || null,
    description: j.description || null,
    created_at: j.created_at,
    started_at: null,
    finished_at: null,
    allow_failure: j.allow_failure,
    coverage: null,
    pipeline_id: j.pipelineId,
    author: userJson(f, j.author),
  };
}

export function pipelineJson(f: FakeGitlabApi, p: FakePipeline): Json {
  return {
    id: p.id,
    iid: p.iid,
    project_id: f.projectId,
    sha: p.sha,
    ref: p.ref,
    status: f.pipelineStatus(p.id),
    source: p.source,
    created_at: p.created_at,
    updated_at: iso(f.now()),
    web_url: `${f.url}/${f.fullPath}/-/pipelines/${p.id}`,
  };
}
