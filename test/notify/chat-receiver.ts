/**
 * A real chat webhook receiver standing in for Slack, Teams or a chat service: a node:http server on
 * 127.0.0.1 that records every JSON body it is sent, by path, and answers the status set per test.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Json } from '../helpers/json.js';

export interface ChatPost {
  path: string;
  body: Json;
  answered: number;
}

export class ChatReceiver {
  readonly posts: ChatPost[] = [];
  /** The status answered: 200 (Slack answers "ok"), or an error status. */
  status = 200;
  private server: Server | null = null;
  base = '';

  async start(host = '127.0.0.1'): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        let body: unknown = raw;
        try {
          body = JSON.parse(raw);
        } catch {}
        const answered = this.status;
        this.posts.push({ path: req.url ?? '', body, answered });
        res.writeHead(answered, { 'content-type': 'text/plain' }).end(answered === 200 ? 'ok' : 'no_service');
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, host, resolve));
    this.base = `http://${host}:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Successful posts to `path`. */
  delivered(path: string): ChatPost[] {
    return this.posts.filter((p) => p.path === path && p.answered === 200);
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }
}
