/**
 * The operator metrics endpoint of a real server (real sockets): off by default; when a port is
 * configured, GET /metrics on 127.0.0.1 without a token answers process, event-loop and HTTP latency
 * metrics (by route pattern and status) and nothing about queues.
 */
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { createServer, type Server } from '../../src/server/server.js';
import { lint, readExposition } from './exposition.js';
import { makeTempDirSync, removeTempDir } from '../helpers/temp-dir.js';

const dir = makeTempDirSync('greenline-operator-');
const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.stop();
});
afterAll(() => removeTempDir(dir));

async function start(env: Record<string, string>, name: string): Promise<Server> {
  const config = loadConfig({ env: { GREENLINE_PORT: '0', GREENLINE_DATA_DIR: join(dir, name), ...env }, cwd: dir });
  const server = createServer(config, pino({ level: 'silent' }));
  servers.push(server);
  await server.start();
  return server;
}

describe('operator metrics configuration', () => {
  it('is off by default, on with a port, and refuses a bad port naming the key', () => {
    expect(loadConfig({ env: {}, cwd: dir })).toMatchObject({
      operatorMetricsPort: null,
      operatorMetricsHost: '127.0.0.1',
    });
    expect(
      loadConfig({
        env: { GREENLINE_OPERATOR_METRICS_PORT: '9464', GREENLINE_OPERATOR_METRICS_HOST: '0.0.0.0' },
        cwd: dir,
      }),
    ).toMatchObject({ operatorMetricsPort: 9464, operatorMetricsHost: '0.0.0.0' });
    expect(() => loadConfig({ env: { GREENLINE_OPERATOR_METRICS_PORT: 'metrics' }, cwd: dir })).toThrow(
      new ConfigError('operatorMetricsPort must be an integer from 0 to 65535, got "metrics"'),
    );
  });
});

describe('operator metrics endpoint', () => {
  it('does not listen unless configured', async () => {
    expect((await start({}, 'off')).operatorMetricsUrl).toBeNull();
  });

  it('answers process, event-loop and request latency metrics on 127.0.0.1, without a token', async () => {
    const server = await start({ GREENLINE_OPERATOR_METRICS_PORT: '0' }, 'on');
    const url = server.operatorMetricsUrl!;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    expect(url).not.toBe(`${server.url}/metrics`);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/v1/getMergeQueueMetrics`)).status).toBe(401);
    expect((await fetch(`${server.url}/no/such/path?id=1`)).status).toBe(404);

    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    const text = await res.text();
    expect(lint(text)).toEqual([]);
    const x = readExposition(text);
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
      'nodejs_eventloop_lag_p99_seconds',
    ]) {
      expect(x.families.has(name), name).toBe(true);
    }
    expect(x.families.get('greenline_http_request_duration_seconds')?.type).toBe('histogram');
    const count = (route: string, status: string, method = 'GET') =>
      x.value('greenline_http_request_duration_seconds_count', { method, route, status });
    expect(count('/healthz', '200')).toBe(2);
    expect(count('/v1/getMergeQueueMetrics', '401')).toBe(1);
    // Unknown paths share one series: the label holds route patterns, never raw URLs.
    expect(count('unmatched', '404')).toBe(1);
    expect(text).not.toContain('/no/such/path');
    expect(text).not.toMatch(/^mq_/m);

    expect((await fetch(url.replace('/metrics', '/other'))).status).toBe(404);
    expect((await fetch(url, { method: 'POST' })).status).toBe(405);
    expect((await fetch(url, { method: 'HEAD' })).status).toBe(200);

    await server.stop();
    await expect(fetch(url)).rejects.toThrow();
  });
});
