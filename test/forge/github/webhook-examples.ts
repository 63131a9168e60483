/**
 * GitHub's example webhook payloads (@octokit/webhooks-examples) as GitHub sends them today: written
 * before some fields existed, each is completed to @octokit/openapi-webhooks' schema of its event and
 * action (github-description.ts `completeWebhook`), so that tests deliver what GitHub delivers.
 */
import examples from '@octokit/webhooks-examples';
import type { Json } from '../../helpers/json.js';
import { completeWebhook } from './github-description.js';

type Payload = Record<string, Json>;

const byEvent = new Map<string, Payload[]>();

/** Every example payload of `event`, completed; a fresh copy each call. */
export function gitHubExamples(event: string): Payload[] {
  if (!byEvent.has(event)) {
    const found = (examples as unknown as { name: string; examples: Payload[] }[]).find((e) => e.name === event);
    byEvent.set(
      event,
      (found?.examples ?? []).map((p) => completeWebhook(event, structuredClone(p))),
    );
  }
  return structuredClone(byEvent.get(event)!);
}

/**
 * The first example of `event` (with `action`), completed, and about `owner/name` instead of GitHub's
 * example repository (Codertocat/Hello-World) when given.
 */
export function gitHubExample(event: string, action?: string, repo?: { owner: string; name: string }): Payload {
  const found = gitHubExamples(event).find((x) => action === undefined || x.action === action);
  if (!found) throw new Error(`no ${event} ${action ?? ''} example`);
  if (!repo) return found;
  return JSON.parse(
    JSON.stringify(found)
      .replaceAll('Codertocat/Hello-World', `${repo.owner}/${repo.name}`)
      .replaceAll('"login":"Codertocat"', `"login":${JSON.stringify(repo.owner)}`)
      .replaceAll('"name":"Hello-World"', `"name":${JSON.stringify(repo.name)}`),
  ) as Payload;
}

/** GitHub's `check_run` `completed` delivery about `sha` on `repo`: the check `name` concluded so. */
export function checkRunCompleted(
  repo: { owner: string; name: string },
  sha: string,
  name: string,
  conclusion: 'success' | 'failure' | 'cancelled',
): Payload {
  const p = gitHubExample('check_run', 'completed', repo);
  Object.assign(p.check_run, { id: 1, name, head_sha: sha, status: 'completed', conclusion });
  p.check_run.html_url = 'https://github.test/ci/1';
  return p;
}
