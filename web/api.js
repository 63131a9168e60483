// The v1 API as the dashboard calls it: the token lives in sessionStorage (gone when the tab closes)
// and travels in the x-api-token header, never in a URL.

import { createParser } from './vendor/eventsource-parser/index.js';

const TOKEN_KEY = 'greenline.token';

export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  set: (value) => sessionStorage.setItem(TOKEN_KEY, value),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** An error answer of the API: `status`, `code` and the server's message. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** An error in words: `CODE: message` for an API error. */
export function errorText(err) {
  return err instanceof ApiError ? `${err.code}: ${err.message}` : String(err);
}

async function errorOf(res) {
  const text = await res.text();
  try {
    const { error } = JSON.parse(text);
    return new ApiError(res.status, error.code, error.message);
  } catch {
    return new ApiError(res.status, `HTTP_${res.status}`, text.slice(0, 200) || res.statusText);
  }
}

/** POST /v1/<endpoint> with a JSON body; resolves to JSON (or text for text answers). */
export async function call(endpoint, body = {}) {
  let res;
  try {
    res = await fetch(`/v1/${endpoint}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-token': token.get() ?? '' },
      body: JSON.stringify(body),
    });
  } catch (err) {
    throw new ApiError(0, 'NETWORK', `The greenline server cannot be reached: ${err.message}`);
  }
  if (!res.ok) throw await errorOf(res);
  const type = res.headers.get('content-type') ?? '';
  return type.includes('json') ? res.json() : res.text();
}

/**
 * Reads GET /v1/streamQueueEvents (server-sent events) with fetch(), which can send the token header
 * (EventSource cannot). Calls onEvent(name, data) per event; resolves when the stream ends, rejects
 * on an error answer or a broken connection. Abort with `signal`.
 */
export async function stream(query, onEvent, signal) {
  const res = await fetch(`/v1/streamQueueEvents?${new URLSearchParams(query)}`, {
    headers: { 'x-api-token': token.get() ?? '', accept: 'text/event-stream' },
    signal,
  });
  if (!res.ok) throw await errorOf(res);
  const parser = createParser({
    onEvent: (event) => {
      if (event.data) onEvent(event.event ?? 'message', JSON.parse(event.data));
    },
  });
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    parser.feed(value);
  }
}
