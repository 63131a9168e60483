/**
 * The operator metrics endpoint: `GET /metrics` on its own address (config `operatorMetricsHost`,
 * `operatorMetricsPort`), without the organizations' API tokens: it says nothing about queues, and
 * it listens on 127.0.0.1 unless configured otherwise. Off unless a port is configured.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OperatorMetrics } from './operator-metrics.js';

export const OPERATOR_METRICS_PATH = '/metrics';

export interface OperatorMetricsServer {
  /** Listens; returns the endpoint's URL. */
  start(): Promise<string>;
  stop(): Promise<void>;
}

export function createOperatorMetricsServer(
  metrics: OperatorMetrics,
  at: { host: string; port: number },
): OperatorMetricsServer {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== OPERATOR_METRICS_PATH) {
      res
        .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
        .end(`Not found: metrics are at ${OPERATOR_METRICS_PATH}\n`);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res
        .writeHead(405, { 'content-type': 'text/plain; charset=utf-8', allow: 'GET, HEAD' })
        .end(`${req.method} not allowed: use GET\n`);
      return;
    }
    metrics.render().then(
      (text) =>
        res
          .writeHead(200, { 'content-type': metrics.registry.contentType })
          .end(req.method === 'HEAD' ? undefined : text),
      (err: unknown) =>
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end(`Metrics failed: ${String(err)}\n`),
    );
  });
  return {
    start: () =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(at.port, at.host, () => {
          server.off('error', reject);
          const { address, port } = server.address() as AddressInfo;
          resolve(`http://${address.includes(':') ? `[${address}]` : address}:${port}${OPERATOR_METRICS_PATH}`);
        });
      }),
    stop: () =>
      new Promise((resolve, reject) => {
        if (!server.listening) {
          resolve();
          return;
        }
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
