/**
 * Sending one chat message: Slack through Slack's IncomingWebhook (@slack/webhook), Teams and generic
 * chat webhooks as a JSON POST. Every request goes out under the delivery URL policy: the URL is
 * checked, and the host's addresses as the connection resolves them (http-post.ts), so a channel
 * reaches no link-local or metadata address, and only allowed hosts when webhookAllowedHosts is set.
 */
import { IncomingWebhook, IncomingWebhookHTTPError, type FetchFunction } from '@slack/webhook';
import type { NotifyKind } from '../store/database.js';
import { answerError, attemptPost, type Outcome, postOnce, timedAttempt } from '../delivery/http-post.js';
import type { UrlPolicy } from '../delivery/url-policy.js';

const USER_AGENT = 'greenline-notifications/1';

/** A fetch for IncomingWebhook that POSTs through postOnce under the URL policy. */
function policyFetch(policy: UrlPolicy, onStatus: (status: number) => void): FetchFunction {
  return async (url, init) => {
    const body = typeof init?.body === 'string' ? init.body : '';
    const res = await postOnce(policy.check(String(url)), {
      headers: { ...init?.headers, 'user-agent': USER_AGENT },
      body,
      signal: init?.signal ?? new AbortController().signal,
      lookup: policy.connectLookup,
    });
    onStatus(res.status);
    const headers = new Headers(res.location ? { location: res.location } : {});
    return {
      ok: res.status >= 200 && res.status < 300,
      status: res.status,
      statusText: '',
      url: String(url),
      headers,
      text: async () => res.text,
      json: async () => JSON.parse(res.text) as unknown,
      arrayBuffer: async () => new TextEncoder().encode(res.text).buffer,
    };
  };
}

/** Sends `body` (the stored payload) to a channel once; never throws. */
export function sendToChannel(
  policy: UrlPolicy,
  channel: { kind: NotifyKind; url: string },
  body: string,
  timeoutMs: number,
): Promise<Outcome> {
  if (channel.kind !== 'slack') {
    return attemptPost(policy, channel.url, {
      headers: { 'content-type': 'application/json', 'user-agent': USER_AGENT },
      body,
      timeoutMs,
    });
  }
  return timedAttempt(async () => {
    let status: number | null = null;
    const fetch = policyFetch(policy, (s) => {
      status = s;
    });
    const hook = new IncomingWebhook(channel.url, { fetch, timeout: timeoutMs });
    try {
      await hook.send(JSON.parse(body) as Parameters<IncomingWebhook['send']>[0]);
      return { statusCode: status, error: null };
    } catch (err) {
      if (err instanceof IncomingWebhookHTTPError)
        return { statusCode: err.statusCode, error: answerError(err.statusCode, null, err.body) };
      const cause = err instanceof Error && 'original' in err ? (err.original as Error) : err;
      if (cause instanceof Error && cause.name === 'TimeoutError')
        return { statusCode: null, error: `no answer within ${timeoutMs} ms` };
      throw cause;
    }
  });
}
