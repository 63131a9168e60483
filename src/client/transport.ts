/**
 * How the client's calls reach the server over fetch: the server's address and token, the timeout,
 * and the answers read as JSON, text or server-sent events. A call resolves with the answer's body or
 * rejects with GreenlineApiError (the server refused: status and code) or GreenlineNetworkError (no
 * answer); aborting through `signal` rejects with the signal's reason. The calls themselves, area by
 * area, are stacked on it (greenline-client.ts).
 */
import { type EventSourceMessage, EventSourceParserStream } from 'eventsource-parser/stream';
import { ENDPOINTS, type EndpointName } from './endpoints.js';
import { apiErrorOf, GreenlineApiError, networkErrorOf } from './errors.js';

export interface GreenlineClientOptions {
  /**
   * Where the server is, e.g. `http://127.0.0.1:8080`. A trailing `/v1` (how Trunk's clients write
   * their base URL) is accepted and dropped.
   */
  url: string;
  /** The organization's API token, sent as `x-api-token`. Only healthz works without one. */
  token?: string;
  /** A request without an answer after this many milliseconds fails with reason TIMEOUT; default 30 000. */
  timeoutMs?: number;
  /** The fetch to call; default the global fetch. */
  fetch?: typeof fetch;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export const DEFAULT_TIMEOUT_MS = 30_000;

/** A query string's values; undefined ones are left out. */
type Query = Record<string, string | number | boolean | undefined>;

export class Transport {
  /** The server's address without a trailing slash or `/v1`. */
  readonly url: string;
  private readonly token: string | undefined;
  private readonly timeoutMs: number;
  private readonly fetch: typeof fetch;

  constructor(options: GreenlineClientOptions) {
    let parsed: URL;
    try {
      parsed = new URL(options.url);
    } catch {
      throw new TypeError(`Invalid greenline URL ${JSON.stringify(options.url)}: expected e.g. http://127.0.0.1:8080`);
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
      throw new TypeError(
        `Invalid greenline URL ${JSON.stringify(options.url)}: only http:// and https:// are supported`,
      );
    }
    this.url = parsed.href.replace(/\/+$/, '').replace(/\/v1$/, '');
    this.token = options.token;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  /** A v1 operation (or an extension) answered with JSON. */
  protected async json<T>(name: EndpointName, body: unknown, options: CallOptions | undefined): Promise<T> {
    const { status, text } = await this.send(name, body, {}, options);
    return this.parsed<T>(status, text, name);
  }

  /** A v1 operation (or an extension) answered with text. */
  protected async text(
    name: EndpointName,
    body: unknown,
    query: Record<string, string | undefined>,
    options: CallOptions | undefined,
  ): Promise<string> {
    return (await this.send(name, body, query, options)).text;
  }

  /** A v2 GET, with the token as a bearer token. */
  protected async v2<T>(path: string, query: Query, options: CallOptions | undefined): Promise<T> {
    const url = new URL(this.url + path);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
    const headers: Record<string, string> = this.token === undefined ? {} : { authorization: `Bearer ${this.token}` };
    const { status, text } = await this.fetchText(url, { method: 'GET', headers }, options);
    return this.parsed<T>(status, text, path);
  }

  /**
   * The server-sent events of a GET operation, until the server ends the stream or `signal` aborts
   * (no timeout applies to the stream once it is open).
   */
  protected async *events(
    name: EndpointName,
    query: Record<string, string>,
    options: CallOptions | undefined,
  ): AsyncGenerator<EventSourceMessage> {
    const url = new URL(this.url + ENDPOINTS[name].path);
    for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (this.token !== undefined) headers['x-api-token'] = this.token;
    let res: Response;
    try {
      res = await this.fetch(url, { headers, ...(options?.signal ? { signal: options.signal } : {}) });
    } catch (err) {
      if (options?.signal?.aborted) throw options.signal.reason;
      throw networkErrorOf(url.href, err, this.timeoutMs);
    }
    if (!res.ok) throw apiErrorOf(res.status, res.statusText, await res.text());
    const reader = res
      .body!.pipeThrough(new TextDecoderStream())
      .pipeThrough(new EventSourceParserStream())
      .getReader();
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        yield value;
      }
    } finally {
      reader.releaseLock();
      await res.body!.cancel().catch(() => undefined);
    }
  }

  private parsed<T>(status: number, text: string, name: string): T {
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new GreenlineApiError(
        status,
        'UNEXPECTED_RESPONSE',
        `The answer of ${name} is not JSON: ${text.slice(0, 200)}`,
      );
    }
  }

  private async send(
    name: EndpointName,
    body: unknown,
    query: Record<string, string | undefined>,
    options: CallOptions | undefined,
  ): Promise<{ status: number; text: string }> {
    const { method, path } = ENDPOINTS[name];
    const url = new URL(this.url + path);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, value);
    const headers: Record<string, string> = {};
    if (this.token !== undefined) headers['x-api-token'] = this.token;
    if (body !== undefined) headers['content-type'] = 'application/json';
    return this.fetchText(
      url,
      { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) },
      options,
    );
  }

  private async fetchText(
    url: URL,
    init: { method: string; headers: Record<string, string>; body?: string },
    options: CallOptions | undefined,
  ): Promise<{ status: number; text: string }> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = options?.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    try {
      const res = await this.fetch(url, { ...init, signal });
      const text = await res.text();
      if (!res.ok) throw apiErrorOf(res.status, res.statusText, text);
      return { status: res.status, text };
    } catch (err) {
      if (err instanceof GreenlineApiError) throw err;
      if (options?.signal?.aborted) throw options.signal.reason;
      throw networkErrorOf(url.href, err, this.timeoutMs);
    }
  }
}
