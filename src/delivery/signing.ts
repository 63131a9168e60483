/**
 * Standard Webhooks signing (https://www.standardwebhooks.com, the scheme Svix uses): the secret is
 * `whsec_` + base64 of 24 random bytes; a delivery is signed with HMAC-SHA256, keyed with the
 * secret's decoded bytes, over `<webhook-id>.<webhook-timestamp>.<body>`, and sent as `v1,<base64>`.
 */
import { createHmac, randomBytes, randomUUID } from 'node:crypto';

const PREFIX = 'whsec_';

export function generateSecret(): string {
  return PREFIX + randomBytes(24).toString('base64');
}

/** A message id (`webhook-id`): `msg_` + 32 hex digits. */
export function newMessageId(): string {
  return `msg_${randomUUID().replaceAll('-', '')}`;
}

export function sign(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** The headers of one delivery attempt: Standard Webhooks names and the same values under Svix's. */
export function signedHeaders(
  secret: string,
  messageId: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  const signature = sign(secret, messageId, timestampSeconds, body);
  const timestamp = String(timestampSeconds);
  return {
    'content-type': 'application/json',
    'user-agent': 'greenline-webhooks/1',
    'webhook-id': messageId,
    'webhook-timestamp': timestamp,
    'webhook-signature': signature,
    'svix-id': messageId,
    'svix-timestamp': timestamp,
    'svix-signature': signature,
  };
}
