/**
 * `POST /webhooks/gitlab`: GitLab's project webhook deliveries. gitlabWebhookSecret is one of two:
 *
 * - the hook's signing token (`whsec_<base64>`, GitLab 19.0+): every delivery must carry a Standard
 *   Webhooks signature (`webhook-signature: v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`,
 *   keyed by the token's decoded bytes) made within five minutes;
 * - else the hook's secret token, which GitLab sends back verbatim as `X-Gitlab-Token` (compared in
 *   constant time).
 *
 * Unsigned or wrong deliveries are refused (401) and nothing is processed. The delivery's id, which
 * GitLab keeps across retries and resends, is `Idempotency-Key` (17.4+), else `X-Gitlab-Event-UUID`,
 * else `webhook-id`; the event is `X-Gitlab-Event`. The route, its raw body and its fast answer are
 * api/forge-webhook.ts's; the delivery is processed from the outbox, once per id.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { ForgeWebhook, WebhookRequest, WebhookReading } from '../definition.js';
import type { GITLAB_SETTINGS } from './settings.js';
import { GITLAB_WEBHOOK_EVENTS, readGitlabDelivery } from './webhook-events.js';

/** How far a signature's timestamp may be from now (Standard Webhooks' tolerance). */
const TOLERANCE_S = 5 * 60;

const refused = (message: string): WebhookReading => ({ ok: false, refused: 'signature', message });

/** Whether `a` and `b` are equal, in time that does not depend on where they differ. */
function sameText(a: string, b: string): boolean {
  const ha = createHash('sha256').update(a).digest();
  const hb = createHash('sha256').update(b).digest();
  return timingSafeEqual(ha, hb) && a.length === b.length;
}

function checkSignature(request: WebhookRequest, secret: string, now: number): WebhookReading | null {
  const id = request.header('webhook-id');
  const timestamp = request.header('webhook-timestamp');
  const signatures = request.header('webhook-signature');
  if (!id || !timestamp || !signatures)
    return refused(
      'is missing: the webhook-id, webhook-timestamp and webhook-signature headers are required; give the GitLab webhook the signing token greenline is configured with (gitlabWebhookSecret)',
    );
  if (!/^\d+$/.test(timestamp) || Math.abs(now / 1000 - Number(timestamp)) > TOLERANCE_S)
    return refused(
      "has a webhook-timestamp more than five minutes from this server's clock: check the clocks of GitLab and greenline",
    );
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(request.body).digest();
  const match = signatures.split(' ').some((s) => {
    const [version, value] = s.split(',');
    const given = Buffer.from(value ?? '', 'base64');
    return version === 'v1' && given.length === expected.length && timingSafeEqual(given, expected);
  });
  return match
    ? null
    : refused(
        "does not match the body: check that the GitLab webhook's signing token is the gitlabWebhookSecret greenline is configured with",
      );
}

/** The webhook, on a clock (the system's unless a test gives one). */
export function gitlabWebhookOn(now: () => number): ForgeWebhook<typeof GITLAB_SETTINGS> {
  return {
    path: '/webhooks/gitlab',
    sender: 'GitLab',
    events: GITLAB_WEBHOOK_EVENTS,
    secretOf: (s) => s.gitlabWebhookSecret,
    withoutSecret:
      'the gitlab forge is configured without gitlabWebhookSecret: changes on GitLab are read by polling alone, and note commands are not received',
    translate: readGitlabDelivery,
    async read(request, secret) {
      if (secret.startsWith('whsec_')) {
        const wrong = checkSignature(request, secret, now());
        if (wrong) return wrong;
      } else {
        const token = request.header('x-gitlab-token');
        if (!token)
          return refused(
            "is missing: the X-Gitlab-Token header is required; set the GitLab webhook's secret token to the gitlabWebhookSecret greenline is configured with",
          );
        if (!sameText(token, secret))
          return refused(
            "does not match: the X-Gitlab-Token GitLab sent is not the gitlabWebhookSecret greenline is configured with; set the webhook's secret token to it",
          );
      }
      const event = request.header('x-gitlab-event');
      const id =
        request.header('idempotency-key') ?? request.header('x-gitlab-event-uuid') ?? request.header('webhook-id');
      if (!event || !id)
        return {
          ok: false,
          refused: 'headers',
          headers: 'X-Gitlab-Event and Idempotency-Key (or X-Gitlab-Event-UUID)',
        };
      return { ok: true, id, event, json: request.body.toString('utf8') };
    },
  };
}

export const gitlabWebhook = gitlabWebhookOn(() => Date.now());
