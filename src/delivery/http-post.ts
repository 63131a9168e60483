/**
 * One delivery POST (a webhook, a chat message) over node:http(s). The connection resolves the host
 * with `lookup` — the URL policy's, which refuses blocked addresses — so the address that was checked
 * is the address that is connected to: a name that resolves differently between a check and the
 * request (DNS rebinding) cannot slip through. Redirects are not followed; at most 4 KiB of the
 * answer is kept.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { SECOND_MS } from '../lib/time.js';
import type { UrlPolicy } from './url-policy.js';

const KEPT_BYTES = 4096;

/** How long a receiver has to answer unless told otherwise. */
export const DEFAULT_TIMEOUT_MS = 15 * SECOND_MS;

export interface PostAnswer {
  status: number;
  location: string | null;
  text: string;
}

export function postOnce(
  url: URL,
  opts: { headers: Record<string, string>; body: string; signal: AbortSignal; lookup: LookupFunction },
): Promise<PostAnswer> {
  return new Promise((resolve, reject) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(
      url,
      {
        method: 'POST',
        headers: { ...opts.headers, 'content-length': String(Buffer.byteLength(opts.body)) },
        lookup: opts.lookup,
        // A connection of its own per attempt: each attempt resolves (and checks) the host anew.
        agent: false,
        signal: opts.signal,
      },
      (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        res.on('data', (chunk: Buffer) => {
          if (kept < KEPT_BYTES) chunks.push(chunk);
          kept += chunk.length;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            location: res.headers.location ?? null,
            text: Buffer.concat(chunks).subarray(0, KEPT_BYTES).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** How one delivery attempt went: success = a 2xx answer within the timeout. */
export interface Outcome {
  success: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/** Times an attempt and turns its answer (a status, or an error) into an Outcome; never throws. */
export async function timedAttempt(
  attempt: () => Promise<{ statusCode: number | null; error: string | null }>,
): Promise<Outcome> {
  const started = performance.now();
  let result: { statusCode: number | null; error: string | null };
  try {
    result = await attempt();
  } catch (err) {
    result = { statusCode: null, error: err instanceof Error ? err.message : String(err) };
  }
  return { ...result, success: result.error === null, durationMs: Math.round(performance.now() - started) };
}

/** Why an answer is a failure, or null for a 2xx. Redirects are not followed: a 3xx is a failure. */
export function answerError(status: number, location: string | null, text: string): string | null {
  if (status >= 200 && status < 300) return null;
  if (status >= 300 && status < 400) return `redirects are not followed (${status} to ${location ?? 'nowhere'})`;
  return `HTTP ${status}${text ? `: ${text.slice(0, 200)}` : ''}`;
}

/**
 * One POST of `body` to `url` under the URL policy: the URL is checked, and the host's addresses as
 * the connection resolves them (policy.connectLookup).
 */
export function attemptPost(
  policy: UrlPolicy,
  url: string,
  opts: { headers: Record<string, string>; body: string; timeoutMs: number },
): Promise<Outcome> {
  return timedAttempt(async () => {
    const target = policy.check(url);
    const signal = AbortSignal.timeout(opts.timeoutMs);
    try {
      const res = await postOnce(target, {
        headers: opts.headers,
        body: opts.body,
        signal,
        lookup: policy.connectLookup,
      });
      return { statusCode: res.status, error: answerError(res.status, res.location, res.text) };
    } catch (err) {
      if (signal.aborted) return { statusCode: null, error: `no answer within ${opts.timeoutMs} ms` };
      throw err;
    }
  });
}
