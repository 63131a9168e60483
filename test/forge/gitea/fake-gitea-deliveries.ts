/**
 * Webhook deliveries of the fake of Gitea and Forgejo (fake-gitea-api.ts): payloads shaped like the
 * captured ones (test/fixtures/gitea/webhooks/) from the fake's state, signed as the forge signs them
 * (`signedDelivery`) and posted once to the hooks a test adds: like the forges, the fake never
 * delivers again a delivery that failed; Forgejo has no `status` event.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FakeGiteaApi } from './fake-gitea-api.js';
import { commentJson, pullJson, repositoryJson, userJson } from './fake-gitea-json.js';
import type { FakeComment, FakeStatus, Json } from './fake-gitea-model.js';
import type { Dialect } from './gitea-description.js';

/** A delivery as the forge posts it: its headers and its exact body. */
export interface Delivery {
  headers: Record<string, string>;
  body: string;
}

/** `X-Gitea-Event` of each event type (`X-Gitea-Event-Type`), as the forges map them. */
const EVENT_OF: Record<string, string> = {
  pull_request: 'pull_request',
  pull_request_assign: 'pull_request',
  pull_request_label: 'pull_request',
  pull_request_milestone: 'pull_request',
  pull_request_sync: 'pull_request',
  pull_request_review_request: 'pull_request',
  issue_comment: 'issue_comment',
  pull_request_comment: 'issue_comment',
  pull_request_review_approved: 'pull_request_approved',
  pull_request_review_rejected: 'pull_request_rejected',
  pull_request_review_comment: 'pull_request_comment',
  push: 'push',
  status: 'status',
};

/**
 * A webhook delivery of `eventType` as `dialect` sends it: the payload's JSON as body (a string is
 * sent as those exact bytes), the
 * HMAC-SHA256 (hex) of exactly those bytes in `X-Gitea-Signature` (and `X-Forgejo-Signature`,
 * `X-Gogs-Signature`, `X-Hub-Signature-256: sha256=…`), HMAC-SHA1 in `X-Hub-Signature`, and the
 * event, event type and delivery id under each name the forge uses. Forgejo has no `status` event.
 */
export function signedDelivery(dialect: Dialect, eventType: string, payload: unknown, secret: string): Delivery {
  const event = EVENT_OF[eventType];
  if (!event) throw new Error(`no ${dialect} event type ${eventType}`);
  if (dialect === 'forgejo' && eventType === 'status') throw new Error('Forgejo sends no status event');
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload, null, 2);
  const sha256 = secret === '' ? '' : createHmac('sha256', secret).update(body).digest('hex');
  const sha1 = secret === '' ? '' : createHmac('sha1', secret).update(body).digest('hex');
  const id = randomUUID();
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-gitea-delivery': id,
    'x-gitea-event': event,
    'x-gitea-event-type': eventType,
    'x-gitea-signature': sha256,
    'x-gogs-delivery': id,
    'x-gogs-event': event,
    'x-gogs-event-type': eventType,
    'x-gogs-signature': sha256,
    'x-hub-signature': `sha1=${sha1}`,
    'x-hub-signature-256': `sha256=${sha256}`,
    'x-github-delivery': id,
    'x-github-event': event,
    'x-github-event-type': eventType,
  };
  if (dialect === 'gitea') {
    headers['x-gitea-hook-installation-target-type'] = 'repository';
    headers['x-github-hook-installation-target-type'] = 'repository';
  } else {
    Object.assign(headers, {
      'x-forgejo-delivery': id,
      'x-forgejo-event': event,
      'x-forgejo-event-type': eventType,
      'x-forgejo-signature': sha256,
    });
  }
  return { headers, body };
}

const FIXTURES = new URL('../../fixtures/gitea/webhooks/', import.meta.url);

/** A captured payload (`gitea.pull_request.opened`), a fresh copy. */
export function capturedPayload(name: string): Json {
  return JSON.parse(readFileSync(new URL(`${name}.json`, FIXTURES), 'utf8')) as Json;
}

/** Posts a delivery of `eventType` to every hook; the answers. */
export async function deliver(
  fake: FakeGiteaApi,
  eventType: string,
  payload: Json,
): Promise<{ status: number; body: string }[]> {
  const answers: { status: number; body: string }[] = [];
  for (const hook of fake.hooks) {
    const d = signedDelivery(fake.dialect, eventType, payload, hook.secret);
    const res = await fetch(hook.url, { method: 'POST', headers: d.headers, body: d.body });
    answers.push({ status: res.status, body: await res.text() });
  }
  return answers;
}

/** A template of the dialect when one was captured, else Gitea's (the forges share the payload structs). */
function template(fake: FakeGiteaApi, name: string): Json {
  try {
    return capturedPayload(`${fake.dialect}.${name}`);
  } catch {
    return capturedPayload(`gitea.${name}`);
  }
}

/** A `pull_request` payload of `action` for PR `n` as it is now, from the captured one. */
export async function pullRequestPayload(
  fake: FakeGiteaApi,
  action: string,
  n: number,
  more: Json = {},
): Promise<Json> {
  const name =
    action === 'closed' && fake.pull(n).merged ? 'pull_request.closed-merged' : `pull_request.${templateOf(action)}`;
  const p = template(fake, name);
  return {
    ...p,
    action,
    number: n,
    pull_request: { ...(p.pull_request as Json), ...(await pullJson(fake, fake.pull(n))) },
    repository: { ...(p.repository as Json), ...repositoryJson(fake) },
    sender: userJson(fake, fake.pull(n).user),
    ...more,
  };
}

/** A `push` payload of `branch` moving from `before` to `after`. */
export function pushPayload(fake: FakeGiteaApi, branch: string, before: string, after: string): Json {
  const p = template(fake, 'push');
  return {
    ...p,
    ref: `refs/heads/${branch}`,
    before,
    after,
    compare_url: `${fake.url}/${fake.owner}/${fake.name}/compare/${before}...${after}`,
    commits: [],
    head_commit: { ...(p.head_commit as Json), id: after },
    repository: { ...(p.repository as Json), ...repositoryJson(fake) },
  };
}

/** An `issue_comment` `created` payload of a comment on PR `n`. */
export function commentPayload(fake: FakeGiteaApi, n: number, comment: FakeComment): Json {
  const p = capturedPayload('gitea.issue_comment.created-on-pull');
  const pr = fake.pull(n);
  return {
    ...p,
    issue: {
      ...(p.issue as Json),
      number: n,
      title: pr.title,
      state: pr.state,
      user: userJson(fake, pr.user),
      pull_request: { merged: pr.merged, merged_at: pr.merged_at },
    },
    comment: { ...(p.comment as Json), ...commentJson(fake, comment) },
    repository: { ...(p.repository as Json), ...repositoryJson(fake) },
    sender: userJson(fake, comment.user),
    is_pull: true,
  };
}

/** A `status` payload (Gitea only; no capture exists: CommitStatusPayload's fields). */
export function statusPayload(fake: FakeGiteaApi, s: FakeStatus): Json {
  return {
    id: s.id,
    sha: s.sha,
    context: s.context,
    state: s.state,
    description: s.description,
    target_url: s.target_url,
    commit: { id: s.sha, message: '', url: `${fake.url}/${fake.owner}/${fake.name}/commit/${s.sha}` },
    created_at: s.created_at,
    updated_at: s.created_at,
    repository: repositoryJson(fake),
    sender: userJson(fake, s.creator),
  };
}

/** The captured payload an action's delivery is shaped like. */
const templateOf = (action: string): string =>
  ({ opened: 'opened', reopened: 'opened', closed: 'closed', synchronized: 'synchronized' })[action] ??
  (action.startsWith('label') ? 'label_updated' : 'opened');
