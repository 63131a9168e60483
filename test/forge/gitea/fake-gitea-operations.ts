/**
 * The answers of the fake of Gitea and Forgejo (fake-gitea-api.ts) by the operation ids of the forge's
 * Swagger document, which both dialects share: the repository, branches and their protection, pull
 * requests and merging, commit statuses, comments, labels and collaborators' permissions.
 */
import type { FakeGiteaApi } from './fake-gitea-api.js';
import {
  branchJson,
  combinedJson,
  commentJson,
  labelJson,
  protectionJson,
  pullJson,
  repositoryJson,
  statusJson,
  userJson,
} from './fake-gitea-json.js';
import { merge } from './fake-gitea-merge.js';
import {
  ADMIN,
  type Answer,
  type HandlerCall,
  iso,
  NOT_ADMIN,
  NOT_FOUND,
  ok,
  type StatusState,
  WRITE,
} from './fake-gitea-model.js';

/** The fake's answers by the document's operation ids, which both dialects share. */
export function giteaOperations(fake: FakeGiteaApi): Record<string, (call: HandlerCall) => Answer | Promise<Answer>> {
  return {
    getVersion: () => ok({ version: fake.version }),
    userGetCurrent: () => ok(userJson(fake, fake.tokenUser)),
    repoGet: () => ok(repositoryJson(fake)),
    repoGetBranch: async ({ params }) => {
      const sha = await fake.branchSha(params.branch!);
      return sha ? ok(branchJson(fake, params.branch!, sha)) : NOT_FOUND;
    },
    repoListBranchProtection: () =>
      fake.rank(fake.tokenUser) < ADMIN ? NOT_ADMIN : ok(fake.protections.map((p) => protectionJson(p))),
    repoGetBranchProtection: ({ params }) => {
      if (fake.rank(fake.tokenUser) < ADMIN) return NOT_ADMIN;
      const p = fake.protections.find((x) => x.rule_name === params.name);
      return p ? ok(protectionJson(p)) : NOT_FOUND;
    },
    repoGetAssignees: () =>
      ok([...fake.users.keys()].filter((u) => fake.rank(u) >= WRITE).map((u) => userJson(fake, u))),
    repoListPullRequests: async ({ query }) => {
      const state = query.get('state') ?? 'open';
      const list = [...fake.pulls.values()].filter((p) => state === 'all' || p.state === state);
      return ok(await Promise.all(list.map((p) => pullJson(fake, p))));
    },
    repoGetPullRequest: async ({ params }) => {
      const pr = fake.pulls.get(Number(params.index));
      return pr ? ok(await pullJson(fake, pr)) : NOT_FOUND;
    },
    repoPullRequestIsMerged: ({ params }) =>
      fake.pulls.get(Number(params.index))?.merged ? { status: 204, body: null } : NOT_FOUND,
    repoMergePullRequest: ({ params, body }) => merge(fake, Number(params.index), body),
    repoCreateStatus: ({ params, body }) => {
      const state = body.state as StatusState | undefined;
      if (!state) return { status: 400, body: { message: 'state is required', url: '' } };
      const s = fake.addStatus(params.sha!, String(body.context ?? 'default'), state, fake.tokenUser);
      Object.assign(s, { description: String(body.description ?? ''), target_url: String(body.target_url ?? '') });
      return { status: 201, body: statusJson(fake, s) };
    },
    repoListStatuses: ({ params }) => statusesOf(fake, params.sha!),
    repoListStatusesByRef: ({ params }) => statusesOf(fake, params.ref!),
    repoGetCombinedStatusByRef: async ({ params, query }) => {
      const sha = await shaOf(fake, params.ref!);
      return sha ? ok(combinedJson(fake, sha, query)) : NOT_FOUND;
    },
    issueGetComments: ({ params }) => {
      const index = Number(params.index);
      if (!fake.pulls.has(index)) return NOT_FOUND;
      return ok(fake.comments.filter((c) => c.issue === index).map((c) => commentJson(fake, c)));
    },
    issueCreateComment: ({ params, body }) => {
      const index = Number(params.index);
      if (!fake.pulls.has(index)) return NOT_FOUND;
      if (typeof body.body !== 'string') return { status: 422, body: { message: 'body is required', url: '' } };
      return { status: 201, body: commentJson(fake, fake.addComment(index, body.body, fake.tokenUser)) };
    },
    issueEditComment: ({ params, body }) => {
      const c = fake.comments.find((x) => x.id === Number(params.id));
      if (!c) return NOT_FOUND;
      if (c.user !== fake.tokenUser) return { status: 403, body: { message: 'not the poster', url: '' } };
      Object.assign(c, { body: String(body.body), updated_at: iso(fake.now()) });
      return { status: 200, body: commentJson(fake, c) };
    },
    issueListLabels: () => ok(fake.labels.map((l) => labelJson(fake, l.id))),
    issueCreateLabel: ({ body }) => {
      if (fake.labels.some((l) => l.name === body.name))
        return { status: 422, body: { message: 'label already exists', url: '' } };
      const id = fake.label(String(body.name));
      Object.assign(fake.labels.find((l) => l.id === id)!, { color: String(body.color ?? '').replace(/^#/, '') });
      return { status: 201, body: labelJson(fake, id) };
    },
    issueGetLabels: ({ params }) => {
      const pr = fake.pulls.get(Number(params.index));
      return pr ? ok(pr.labels.map((id) => labelJson(fake, id))) : NOT_FOUND;
    },
    issueAddLabel: ({ params, body }) => {
      const pr = fake.pulls.get(Number(params.index));
      if (!pr) return NOT_FOUND;
      for (const l of (body.labels as unknown[]) ?? []) {
        const id = typeof l === 'number' ? l : fake.labels.find((x) => x.name === l)?.id;
        if (id === undefined || !fake.labels.some((x) => x.id === id))
          return { status: 422, body: { message: `label ${String(l)} does not exist`, url: '' } };
        if (!pr.labels.includes(id)) pr.labels.push(id);
      }
      return ok(pr.labels.map((id) => labelJson(fake, id)));
    },
    // Gitea names the label `{id}`, Forgejo `{identifier}` (an id or a name).
    issueRemoveLabel: ({ params }) => {
      const pr = fake.pulls.get(Number(params.index));
      const key = params.id ?? params.identifier!;
      const id = /^\d+$/.test(key) ? Number(key) : fake.labels.find((l) => l.name === key)?.id;
      if (!pr || id === undefined || !pr.labels.includes(id)) return NOT_FOUND;
      pr.labels = pr.labels.filter((x) => x !== id);
      return { status: 204, body: null };
    },
    repoGetRepoPermissions: ({ params }) => {
      if (params.collaborator!.toLowerCase() !== fake.tokenUser.toLowerCase() && fake.rank(fake.tokenUser) < ADMIN)
        return { status: 403, body: { message: 'Only admin or the user themself can see their permissions', url: '' } };
      const permission = fake.users.get(params.collaborator!);
      if (permission === undefined) return NOT_FOUND;
      return ok({ permission, role_name: permission, user: userJson(fake, params.collaborator!) });
    },
  };
}

/** The statuses of the commit a ref names, newest first. */
async function statusesOf(fake: FakeGiteaApi, ref: string): Promise<Answer> {
  const sha = await shaOf(fake, ref);
  return ok(
    fake.statuses
      .filter((s) => s.sha === sha)
      .reverse()
      .map((s) => statusJson(fake, s)),
  );
}

/** The sha a ref names (a sha, a branch), or null. */
async function shaOf(fake: FakeGiteaApi, ref: string): Promise<string | null> {
  if (/^[0-9a-f]{40}$/.test(ref)) return ref;
  return fake.branchSha(ref);
}
