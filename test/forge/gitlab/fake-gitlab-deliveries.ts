/**
 * The fake GitLab's webhook deliveries: payloads shaped like the captured ones
 * (test/fixtures/gitlab/webhooks/, GitLab's own doc examples) with the fake's project, MRs, notes and
 * pipelines in them, posted with GitLab's headers (`X-Gitlab-Event`, `X-Gitlab-Event-UUID`,
 * `X-Gitlab-Webhook-UUID`, `X-Gitlab-Instance`, `Idempotency-Key`, `User-Agent: GitLab/19.5.0`), the
 * hook's secret token as `X-Gitlab-Token` when it has one, and, when it has a signing token
 * (`whsec_…`, GitLab 19.0+), the Standard Webhooks headers signed by the independent `standardwebhooks`
 * package.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import type { FakeGitlabApi, FakeNote, FakePipeline } from './fake-gitlab-api.js';
import { DRAFT, detailedStatus } from './fake-gitlab-handlers.js';

type Json = Record<string, unknown>;

export interface Hook {
  url: string;
  /** The secret token, sent back verbatim in `X-Gitlab-Token`. */
  token?: string;
  /** The signing token, `whsec_<base64 of 32 bytes>`. */
  signingToken?: string;
}

/** A delivery as GitLab posts it: its headers and its exact body. */
export interface Delivery {
  headers: Record<string, string>;
  body: string;
}

/** The captured payload `gitlab.<name>.json`, a fresh copy. */
export function capturedPayload(name: string): Json {
  const file = new URL(`../../fixtures/gitlab/webhooks/gitlab.${name}.json`, import.meta.url);
  return JSON.parse(readFileSync(file, 'utf8')) as Json;
}

/** The delivery of `payload` as `event` (`Merge Request Hook` …) to `hook`. */
export function delivery(instance: string, hook: Hook, event: string, payload: unknown): Delivery {
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload);
  const uuid = randomUUID();
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'GitLab/19.5.0',
    'x-gitlab-event': event,
    'x-gitlab-event-uuid': uuid,
    'x-gitlab-webhook-uuid': '6f2b5a0e-1c8f-4d5e-9a77-0c6c1a2b3d4e',
    'x-gitlab-instance': instance,
    'idempotency-key': uuid,
  };
  if (hook.token !== undefined) headers['x-gitlab-token'] = hook.token;
  if (hook.signingToken !== undefined) {
    const id = `msg_${uuid}`;
    const at = new Date();
    headers['webhook-id'] = id;
    headers['webhook-timestamp'] = String(Math.floor(at.getTime() / 1000));
    headers['webhook-signature'] = new Webhook(hook.signingToken).sign(id, at, body);
  }
  return { headers, body };
}

export class GitlabDeliveries {
  readonly hooks: Hook[] = [];

  constructor(private readonly f: FakeGitlabApi) {}

  /** Posts `payload` as `event` to every hook; the answers. */
  async deliver(event: string, payload: Json): Promise<{ status: number; body: string }[]> {
    const answers: { status: number; body: string }[] = [];
    for (const hook of this.hooks) {
      const d = delivery(this.f.url, hook, event, payload);
      const res = await fetch(hook.url, { method: 'POST', headers: d.headers, body: d.body });
      answers.push({ status: res.status, body: await res.text() });
    }
    return answers;
  }

  projectJson(): Json {
    const f = this.f;
    return {
      id: f.projectId,
      name: f.name,
      description: '',
      web_url: `${f.url}/${f.fullPath}`,
      avatar_url: null,
      git_ssh_url: `git@127.0.0.1:${f.fullPath}.git`,
      git_http_url: `${f.url}/${f.fullPath}.git`,
      namespace: f.namespace,
      visibility_level: 0,
      path_with_namespace: f.fullPath,
      default_branch: f.defaultBranch,
      homepage: `${f.url}/${f.fullPath}`,
      url: `git@127.0.0.1:${f.fullPath}.git`,
      ssh_url: `git@127.0.0.1:${f.fullPath}.git`,
      http_url: `${f.url}/${f.fullPath}.git`,
    };
  }

  private user(username: string): Json {
    return { id: this.f.userId(username), name: username, username, avatar_url: null, email: '[REDACTED]' };
  }

  private labelJson(name: string): Json {
    const l = this.f.label(name);
    return { id: l.id, title: l.name, color: l.color, project_id: this.f.projectId, type: 'ProjectLabel' };
  }

  /** A `Merge Request Hook` of `action` for MR `iid` as it is now; `changes` as GitLab lists them. */
  async mergeRequest(action: string, iid: number, by: string, changes: Json = {}): Promise<Json> {
    const p = capturedPayload('merge_request.open');
    const mr = this.f.mr(iid);
    const head = await this.f.headOf(iid);
    const labels = mr.labels.map((l) => this.labelJson(l));
    return {
      ...p,
      user: this.user(by),
      project: this.projectJson(),
      repository: {
        name: this.f.name,
        url: `${this.f.url}/${this.f.fullPath}.git`,
        homepage: `${this.f.url}/${this.f.fullPath}`,
      },
      object_attributes: {
        ...(p.object_attributes as Json),
        id: 5000 + iid,
        iid,
        target_branch: mr.target_branch,
        source_branch: mr.source_branch,
        source_project_id: this.f.projectId,
        target_project_id: this.f.projectId,
        title: mr.title,
        state: mr.state,
        draft: DRAFT.test(mr.title),
        work_in_progress: DRAFT.test(mr.title),
        detailed_merge_status: await detailedStatus(this.f, mr),
        url: `${this.f.url}/${this.f.fullPath}/-/merge_requests/${iid}`,
        last_commit: { ...((p.object_attributes as Json).last_commit as Json), id: head },
        labels,
        action,
      },
      labels,
      changes,
    };
  }

  /** `changes.labels` of a label change from `previous` to the MR's labels now. */
  labelChanges(iid: number, previous: string[]): Json {
    return {
      labels: {
        previous: previous.map((l) => this.labelJson(l)),
        current: this.f.mr(iid).labels.map((l) => this.labelJson(l)),
      },
    };
  }

  /** A `Note Hook` of a note on MR `iid`. */
  note(iid: number, note: FakeNote): Json {
    const p = capturedPayload('note.merge_request.create');
    const mr = this.f.mr(iid);
    return {
      ...p,
      user: this.user(note.author),
      project_id: this.f.projectId,
      project: this.projectJson(),
      object_attributes: {
        ...(p.object_attributes as Json),
        id: note.id,
        note: note.body,
        noteable_type: 'MergeRequest',
        author_id: this.f.userId(note.author),
        project_id: this.f.projectId,
        noteable_id: 5000 + iid,
        system: note.system,
        action: 'create',
        url: `${this.f.url}/${this.f.fullPath}/-/merge_requests/${iid}#note_${note.id}`,
      },
      merge_request: {
        ...(p.merge_request as Json),
        id: 5000 + iid,
        iid,
        title: mr.title,
        state: mr.state,
        target_branch: mr.target_branch,
        source_branch: mr.source_branch,
        source_project_id: this.f.projectId,
        target_project_id: this.f.projectId,
      },
    };
  }

  /** A `Push Hook` of `branch` moving from `before` to `after`. */
  push(branch: string, before: string, after: string, by = 'ada'): Json {
    const p = capturedPayload('push');
    return {
      ...p,
      before,
      after,
      ref: `refs/heads/${branch}`,
      checkout_sha: after,
      user_id: this.f.userId(by),
      user_username: by,
      project_id: this.f.projectId,
      project: this.projectJson(),
      commits: [],
      total_commits_count: 0,
    };
  }

  /** A `Pipeline Hook` of a pipeline as it is now. */
  pipeline(pipeline: FakePipeline): Json {
    const p = capturedPayload('pipeline.success');
    return {
      ...p,
      object_attributes: {
        ...(p.object_attributes as Json),
        id: pipeline.id,
        iid: pipeline.iid,
        ref: pipeline.ref,
        sha: pipeline.sha,
        source: pipeline.source,
        status: this.f.pipelineStatus(pipeline.id),
        url: `${this.f.url}/${this.f.fullPath}/-/pipelines/${pipeline.id}`,
      },
      merge_request: null,
      project: this.projectJson(),
      builds: [],
    };
  }
}
