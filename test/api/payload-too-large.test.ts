/**
 * Over a real socket with Node's fetch (undici): a body over 20 MiB must reach the client as 413 with
 * the JSON error body, every time. The client is still sending when the server has decided; a server
 * that answered and closed at once made about one upload in five fail with EPIPE / ECONNRESET.
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMIT } from '../../src/api/build-app.js';
import { drainBody, type DrainLimits } from '../../src/api/drain-body.js';
import { listenApiHarness, REPO } from './api-harness.js';

const run = promisify(execFile);

let h: Awaited<ReturnType<typeof listenApiHarness>>;
let base: string;
let token: string;

beforeAll(async () => {
  h = await listenApiHarness(); // enumCase 'upper', the server's default
  ({ base, token } = h);
});
afterAll(() => h.close());

const TOO_LARGE = {
  error: {
    code: 'PAYLOAD_TOO_LARGE',
    message: 'The request body is larger than the 20 MiB limit; for large impacted-target lists send "ALL"',
  },
};

/**
 * Node's fetch in its own process (sharing the server's event loop, it never races it): `n` uploads of
 * a valid setImpactedTargets body of `bytes` bytes; prints each outcome as one JSON line.
 */
const CLIENT = `
const [url, token, bytes, n] = process.argv.slice(1);
const head = JSON.stringify({ repo: ${JSON.stringify(REPO)}, targetBranch: 'main', pr: { number: 1, sha: 'b'.repeat(40) }, impactedTargets: [] }).slice(0, -2);
const body = head + '["' + 'x'.repeat(Number(bytes) - head.length - 4) + '"]}';
for (let i = 0; i < Number(n); i++) {
  try {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-token': token }, body });
    console.log(JSON.stringify({ status: res.status, body: await res.json() }));
  } catch (err) {
    console.log(JSON.stringify({ failed: String(err.cause?.code ?? err.cause?.message ?? err) }));
  }
}`;

async function uploads(bytes: number, n: number): Promise<unknown[]> {
  const { stdout } = await run(process.execPath, [
    '--input-type=module',
    '-e',
    CLIENT,
    `${base}/v1/setImpactedTargets`,
    token,
    String(bytes),
    String(n),
  ]);
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

describe('413 over a real socket', () => {
  it('answers 20 uploads of 21 MiB from fetch with 413 and its JSON body, none reset', async () => {
    const bytes = 21 * 1024 * 1024;
    expect(bytes).toBeGreaterThan(BODY_LIMIT);
    expect(await uploads(bytes, 20)).toEqual(Array(20).fill({ status: 413, body: TOO_LARGE }));
  }, 120_000);
});

describe('drainBody bounds', () => {
  /** A raw server that drains each request with `limits` and reports how much it saw and when it gave up. */
  async function drainServer(limits: DrainLimits) {
    const seen: { ms: number }[] = [];
    const server = createServer((req, res) => {
      const started = Date.now();
      void drainBody(req, limits).then(() => {
        seen.push({ ms: Date.now() - started });
        res.writeHead(413, { connection: 'close' }).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return { seen, port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
  }

  it('gives up after maxMs on a client that stops sending', async () => {
    const s = await drainServer({ maxBytes: 1024 * 1024, maxMs: 300 });
    const socket = connect(s.port, '127.0.0.1');
    socket.write('POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 1000000000\r\n\r\nabc');
    const answer = await new Promise<string>((resolve) => socket.once('data', (d) => resolve(String(d))));
    socket.destroy();
    expect(answer).toMatch(/^HTTP\/1.1 413/);
    expect(s.seen[0]!.ms).toBeGreaterThanOrEqual(250);
    await s.close();
  });

  it('gives up after maxBytes on a client that keeps sending', async () => {
    const s = await drainServer({ maxBytes: 1024 * 1024, maxMs: 60_000 });
    const socket = connect(s.port, '127.0.0.1');
    socket.on('error', () => {});
    socket.write('POST / HTTP/1.1\r\nhost: x\r\ncontent-length: 1000000000\r\n\r\n');
    let answered = false;
    const answer = new Promise<void>((resolve) =>
      socket.once('data', () => {
        answered = true;
        resolve();
      }),
    );
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const chunk = Buffer.alloc(64 * 1024, 'x');
    for (let sent = 0; !answered && sent < 64 * 1024 * 1024; sent += chunk.length) {
      if (!socket.write(chunk))
        await Promise.race([new Promise((resolve) => socket.once('drain', resolve)), answer, closed]);
    }
    socket.destroy();
    expect(answered).toBe(true);
    expect(s.seen[0]!.ms).toBeLessThan(60_000);
    await s.close();
  });
});
