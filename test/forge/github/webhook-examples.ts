/**
 * GitHub's example webhook payloads (@octokit/webhooks-examples) as GitHub sends them today: written
 * before some fields existed, each is completed to @octokit/openapi-webhooks' schema of its event and
 * action (`completeWebhook`), so that tests deliver what GitHub delivers.
 */
import examples from '@octokit/webhooks-examples';
import type { Json } from '../../helpers/json.js';
import { gitHubWebhooks, webhookValidator } from './github-description.js';

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

type Schema = Record<string, unknown>;

/**
 * A payload brought to the shape GitHub sends today, in place: each field the schema requires and the
 * payload lacks is added with a plain value of its type (null where it may be null), and a value of the
 * wrong type or format is replaced so. For payloads written before a field existed (the examples of
 * @octokit/webhooks-examples); the payload's own values stay where they are valid.
 */
export function completeWebhook<T>(event: string, payload: T): T {
  const found = webhookValidator(event, payload);
  if (typeof found === 'string') return payload;
  const { v } = found;
  for (let round = 0; round < 10 && !v(payload); round++) {
    // Of alternatives (oneOf: a reviewer or a team), only the one the payload comes closest to is completed.
    const branch = (path: string) => /^(.*?\/oneOf\/)(\d+)/.exec(path);
    const counts = new Map<string, number>();
    for (const e of v.errors ?? []) {
      const b = branch(e.schemaPath);
      if (b) counts.set(b[0], (counts.get(b[0]) ?? 0) + 1);
    }
    const closest = (b: RegExpExecArray) =>
      [...counts].filter(([k]) => k.startsWith(b[1]!)).sort((x, y) => x[1] - y[1])[0]![0] === b[0];
    for (const e of v.errors ?? []) {
      const b = branch(e.schemaPath);
      if (b && !closest(b)) continue;
      const parts = e.instancePath.split('/').slice(1);
      const at = parts.reduce<unknown>((o, k) => (o as Schema | undefined)?.[k], payload) as Schema | undefined;
      if (e.keyword === 'required') {
        const name = (e.params as { missingProperty: string }).missingProperty;
        const props = ((e.parentSchema as Schema | undefined)?.properties ?? {}) as Schema;
        if (at && typeof at === 'object' && !(name in at))
          at[name] = plainValue(props[name] as Schema | undefined, 0, name);
      } else if (['type', 'format', 'enum'].includes(e.keyword) && parts.length > 0) {
        const holder = parts.slice(0, -1).reduce<unknown>((o, k) => (o as Schema)[k], payload) as Schema;
        holder[parts[parts.length - 1]!] = plainValue(e.parentSchema as Schema, 0, parts[parts.length - 1]);
      }
    }
  }
  return payload;
}

/**
 * A plain valid value of a schema: null where allowed, the first enum value, a typical string of a
 * format (an address for a `…url` field, as GitHub fills one the sender left out).
 */
function plainValue(schema: Schema | undefined, depth: number, name = ''): unknown {
  if (!schema || depth > 8) return null;
  const s = gitHubWebhooks().resolveSchema(schema);
  const types = ([] as unknown[]).concat(s.type ?? []);
  if (types.includes('null')) return null;
  if (Array.isArray(s.enum)) return s.enum[0];
  const choice = ((s.anyOf ?? s.oneOf) as Schema[] | undefined)?.find((x) => x.type !== 'null');
  if (choice) return plainValue(choice, depth + 1);
  if (Array.isArray(s.allOf)) return Object.assign({}, ...(s.allOf as Schema[]).map((x) => plainValue(x, depth + 1)));
  const format = s.format;
  if (types.includes('string'))
    return format === 'date-time'
      ? '2026-01-05T09:00:00Z'
      : format === 'uri' || format === 'uri-template' || name.endsWith('url')
        ? 'https://github.com'
        : format === 'email'
          ? 'octocat@github.com'
          : '';
  if (types.includes('integer') || types.includes('number')) return 0;
  if (types.includes('boolean')) return false;
  if (types.includes('array')) return [];
  const out: Schema = {};
  const props = (s.properties ?? {}) as Schema;
  for (const name of (s.required as string[] | undefined) ?? [])
    out[name] = plainValue(props[name] as Schema, depth + 1, name);
  return out;
}
