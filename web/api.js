// @ts-check
// The v1 API as the dashboard calls it, typed by the client SDK: the token lives in sessionStorage
// (gone when the tab closes) and travels in the x-api-token header, never in a URL. A refused token
// signs the user out, saying why (failed, onSignOut).
import { createParser } from 'eventsource-parser';

/** @typedef {import('../src/client/index.js').GreenlineClient} GreenlineClient */
/** @typedef {import('../src/client/index.js').EndpointName} EndpointName */
/** @typedef {import('../src/client/index.js').StreamQueueEventsQuery} StreamQueueEventsQuery */
/** @typedef {import('../src/client/index.js').QueueActivity} QueueActivity */
/** @typedef {keyof GreenlineClient & EndpointName} Endpoint An endpoint the SDK has a method of the same name for. */

const TOKEN_KEY = 'greenline.token';

export const token = {
  get: () => sessionStorage.getItem(TOKEN_KEY),
  /** @param {string} value */
  set: (value) => sessionStorage.setItem(TOKEN_KEY, value),
  clear: () => sessionStorage.removeItem(TOKEN_KEY),
};

/** An error answer of the API: `status` (0 when the server was not reached), `code` and the server's message. */
export class ApiError extends Error {
  /**
   * @param {number} status
   * @param {string} code
   * @param {string} message
   */
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** @param {unknown} err */
const errorMessage = (err) => (err instanceof Error ? err.message : String(err));

/** @param {Response} res */
async function errorOf(res) {
  const text = await res.text();
  try {
    const { error } = JSON.parse(text);
    return new ApiError(res.status, error.code, error.message);
  } catch {
    return new ApiError(res.status, `HTTP_${res.status}`, text.slice(0, 200) || res.statusText);
  }
}

/**
 * POST /v1/<endpoint> with a JSON body; resolves to the answer the SDK's method of that name types
 * (JSON, or text for text answers).
 * @template {Endpoint} E
 * @param {E} endpoint
 * @param {Parameters<GreenlineClient[E]>[0]} [body]
 * @returns {Promise<Awaited<ReturnType<GreenlineClient[E]>>>}
 */
export async function call(endpoint, body = {}) {
  let res;
  try {
    res = await fetch(`/v1/${endpoint}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-token': token.get() ?? '' },
      body: JSON.stringify(body),
    });
  } catch (err) {
    throw new ApiError(0, 'NETWORK', `The greenline server cannot be reached: ${errorMessage(err)}`);
  }
  if (!res.ok) throw await errorOf(res);
  const type = res.headers.get('content-type') ?? '';
  return /** @type {Promise<Awaited<ReturnType<GreenlineClient[E]>>>} */ (
    type.includes('json') ? res.json() : res.text()
  );
}

/**
 * Reads GET /v1/streamQueueEvents (server-sent events) with fetch(), which can send the token header
 * (EventSource cannot). Calls onEvent(name, data) per event; resolves when the stream ends, rejects
 * on an error answer or a broken connection. Abort with `signal`.
 * @param {StreamQueueEventsQuery} query
 * @param {(name: string, data: QueueActivity) => void} onEvent
 * @param {AbortSignal} signal
 */
export async function stream(query, onEvent, signal) {
  const res = await fetch(`/v1/streamQueueEvents?${new URLSearchParams(query)}`, {
    headers: { 'x-api-token': token.get() ?? '', accept: 'text/event-stream' },
    signal,
  });
  if (!res.ok || !res.body) throw await errorOf(res);
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

/** @typedef {(message: string, error: boolean) => void} SignOutListener */
/** @type {Set<SignOutListener>} */
const signOutListeners = new Set();

/**
 * Forgets the token and tells the app (onSignOut), which shows the sign-in form with `message`.
 * @param {string} message
 * @param {boolean} error true when the user did not ask for it (a refused token)
 */
export function signOut(message, error) {
  token.clear();
  for (const listener of signOutListeners) listener(message, error);
}

/**
 * Calls `listener` with the message of each sign-out; returns the function that stops it.
 * @param {SignOutListener} listener
 */
export function onSignOut(listener) {
  signOutListeners.add(listener);
  return () => {
    signOutListeners.delete(listener);
  };
}

/**
 * Any call that finds the token refused sends the user back to sign in, saying why; true then, false
 * for any other error (the caller shows it).
 * @param {unknown} err
 */
export function failed(err) {
  if (!(err instanceof ApiError && err.status === 401)) return false;
  signOut(
    `The API token was refused (${err.code}): ${err.message}. Check that you copied the whole token and that it was not revoked; an administrator creates a new one with greenline token create --org ORG.`,
    true,
  );
  return true;
}
