/**
 * A real webhook receiver: a node:http server on 127.0.0.1 that checks every delivery with the
 * `standardwebhooks` package (an independent implementation of the signature scheme) and records it.
 * Its answer is set per test: 204, an error status, a redirect, or a slow answer; or it is down
 * (down(): the port stops listening, connections are refused) until up() listens on it again.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { vi } from 'vitest';
import type { Json } from '../helpers/json.js';

export interface Received {
  id: string;
  timestamp: number;
  headers: IncomingHttpHeaders;
  body: Json;
  raw: string;
  /** The status the receiver answered. */
  answered: number;
}

export type Behaviour =
  | { kind: 'ok' }
  | { kind: 'status'; status: number }
  | { kind: 'redirect'; location: string }
  | { kind: 'slow'; ms: number };

export class Receiver {
  readonly received: Received[] = [];
  /** Deliveries whose signature (or svix-* copy) did not check out, with why. */
  readonly rejected: { id: string; why: string }[] = [];
  behaviour: Behaviour = { kind: 'ok' };
  secret = '';
  /** The sender's clock: the signature's timestamp is checked against it (standardwebhooks allows 5 min). */
  now: () => number = () => Date.now();
  private server: Server | null = null;
  /** Slow answers not given yet: close() drops them. */
  private readonly slowAnswers = new Set<NodeJS.Timeout>();
  url = '';

  async start(path = '/hooks'): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        this.check(req.headers, raw);
        const b = this.behaviour;
        const answer = (status: number, headers: Record<string, string> = {}) => {
          this.received.push({
            id: String(req.headers['webhook-id']),
            timestamp: Number(req.headers['webhook-timestamp']),
            headers: req.headers,
            body: JSON.parse(raw),
            raw,
            answered: status,
          });
          res.writeHead(status, headers).end();
        };
        if (b.kind === 'ok') answer(204);
        else if (b.kind === 'status') answer(b.status);
        else if (b.kind === 'redirect') answer(302, { location: b.location });
        else {
          const timer = setTimeout(() => {
            this.slowAnswers.delete(timer);
            if (!res.destroyed) answer(204);
          }, b.ms);
          this.slowAnswers.add(timer);
        }
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}${path}`;
    return this;
  }

  private check(headers: IncomingHttpHeaders, raw: string): void {
    const id = String(headers['webhook-id']);
    const h = {
      'webhook-id': id,
      'webhook-timestamp': String(headers['webhook-timestamp']),
      'webhook-signature': String(headers['webhook-signature']),
    };
    if (
      headers['svix-id'] !== h['webhook-id'] ||
      headers['svix-timestamp'] !== h['webhook-timestamp'] ||
      headers['svix-signature'] !== h['webhook-signature']
    ) {
      this.rejected.push({ id, why: 'svix-* headers differ from webhook-*' });
    }
    if (headers['content-type'] !== 'application/json')
      this.rejected.push({ id, why: `content-type ${headers['content-type']}` });
    // The verifier compares the timestamp with Date.now(): show it the sender's (possibly fake) time.
    vi.useFakeTimers({ toFake: ['Date'], now: this.now() });
    try {
      new Webhook(this.secret).verify(raw, h);
    } catch (err) {
      this.rejected.push({ id, why: (err as Error).message });
    } finally {
      vi.useRealTimers();
    }
  }

  /** Successful deliveries (2xx answers). */
  delivered(): Received[] {
    return this.received.filter((r) => r.answered >= 200 && r.answered < 300);
  }

  /** Stops listening (and drops open connections): attempts are refused until up(). */
  async down(): Promise<void> {
    const s = this.server!;
    s.closeAllConnections();
    await new Promise<void>((resolve, reject) => s.close((err) => (err ? reject(err) : resolve())));
  }

  /** Listens again on the same address after down(). */
  async up(): Promise<void> {
    const { port } = new URL(this.url);
    await new Promise<void>((resolve) => this.server!.listen(Number(port), '127.0.0.1', resolve));
  }

  async close(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (!s) return;
    for (const timer of this.slowAnswers) clearTimeout(timer);
    this.slowAnswers.clear();
    if (!s.listening) return;
    s.closeAllConnections();
    await new Promise<void>((resolve) => s.close(() => resolve()));
  }
}
