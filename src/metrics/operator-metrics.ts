/**
 * Metrics for the people who run greenline, apart from the organizations' queue metrics: prom-client's
 * default process and Node.js metrics (CPU, memory, handles, GC, event-loop lag as
 * `nodejs_eventloop_lag_seconds` and its percentiles) and the HTTP API's request latency, on a
 * registry of their own (never the global one) served by operator-server.ts. Per process: unlike the
 * queue metrics, each instance reports itself. docs/metrics.md lists them.
 */
import { Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** One answered HTTP request. `route` is the route's pattern (bounded), not the requested URL. */
export interface RequestTiming {
  method: string;
  route: string;
  status: number;
  seconds: number;
}

/** Request latency buckets (seconds): API answers take milliseconds; the slowest are store writes. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export class OperatorMetrics {
  readonly registry = new Registry();
  private readonly requests = new Histogram({
    name: 'greenline_http_request_duration_seconds',
    help: 'Time to answer HTTP API requests, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  observeRequest(r: RequestTiming): void {
    this.requests.observe({ method: r.method, route: r.route, status: String(r.status) }, r.seconds);
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
