/**
 * A real HTTP server on 127.0.0.1 that answers every request one way a forge can misbehave: not at
 * all, with the headers but never the body, or with a status and headers of the test's choosing (a
 * rate limit). For the forge clients' deadlines and rate limits (test/forge/<forge>/deadlines.test.ts).
 */
import { createServer, type OutgoingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Misbehaviour =
  | { kind: 'silent' }
  | { kind: 'headers-only' }
  | { kind: 'answer'; status: number; headers: OutgoingHttpHeaders; body: unknown };

export interface MisbehavingServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Every request received, as `METHOD /path`. */
  requests: string[];
  close(): Promise<void>;
}

export async function startMisbehavingServer(how: Misbehaviour): Promise<MisbehavingServer> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    if (how.kind === 'silent') return;
    if (how.kind === 'headers-only') {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
      res.write('{"number":');
      return;
    }
    res.writeHead(how.status, { 'content-type': 'application/json', ...how.headers });
    res.end(JSON.stringify(how.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
