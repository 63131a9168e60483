/**
 * One webhook POST over node:http(s). The connection resolves the host with `lookup` — the URL
 * policy's, which refuses blocked addresses — so the address that was checked is the address that
 * is connected to: a name that resolves differently between a check and the request (DNS
 * rebinding) cannot slip through. Redirects are not followed; at most 4 KiB of the answer is kept.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';

const KEPT_BYTES = 4096;

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
