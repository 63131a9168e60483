/**
 * Metrics for the people who run greenline, apart from the organizations' queue metrics: prom-client's
 * default process and Node.js metrics (CPU, memory, handles, GC, event-loop lag as
 * `nodejs_eventloop_lag_seconds` and its percentiles), the HTTP API's request latency, and the
 * github forge's requests and the request budget left, on a
 * registry of their own (never the global one) served by operator-server.ts. Per process: unlike the
 * queue metrics, each instance reports itself. docs/metrics.md lists them.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** One answered HTTP request. `route` is the route's pattern (bounded), not the requested URL. */
export interface RequestTiming {
  method: string;
  route: string;
  status: number;
  seconds: number;
}

/** One answer of GitHub to the github forge (forge/github/request-budget.ts). */
export interface GitHubAnswer {
  method: string;
  status: number;
  /** The client whose budget it was: `installation <id>`, `token` or `app`. */
  client: string;
  /** The requests left in the client's hourly budget, when the answer says. */
  remaining?: number;
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

  private readonly githubRequests = new Counter({
    name: 'greenline_github_requests_total',
    help: 'Requests answered by GitHub, by method and status class (3xx: 304 Not Modified, which costs no budget)',
    labelNames: ['method', 'status'] as const,
    registers: [this.registry],
  });
  private readonly githubRemaining = new Gauge({
    name: 'greenline_github_rate_limit_remaining',
    help: "Requests left in the hourly budget of each GitHub client (App installation or token), as GitHub's last answer said",
    labelNames: ['client'] as const,
    registers: [this.registry],
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  observeGitHub(a: GitHubAnswer): void {
    this.githubRequests.inc({ method: a.method, status: `${Math.floor(a.status / 100)}xx` });
    if (a.remaining !== undefined && Number.isFinite(a.remaining))
      this.githubRemaining.set({ client: a.client }, a.remaining);
  }

  observeRequest(r: RequestTiming): void {
    this.requests.observe({ method: r.method, route: r.route, status: String(r.status) }, r.seconds);
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }
}
