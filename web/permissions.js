// @ts-check
// What the signed-in token may do (POST /v1/getCurrentToken): read once per sign-in, so that pages
// show only the buttons the token may use. Until it is known, no write button shows.
import { call, onSignOut } from './api.js';
import { useEffect, useState } from './ui.js';

/** @typedef {import('../src/client/index.js').CurrentToken} CurrentToken */
/** @typedef {CurrentToken['scopes'][number]} Scope */

/** @type {Promise<CurrentToken> | null} */
let current = null;
onSignOut(() => {
  current = null;
});

/** The token's description, asked for once per sign-in. */
function currentToken() {
  current ??= call('getCurrentToken').catch((err) => {
    current = null;
    throw err;
  });
  return current;
}

/**
 * Whether the signed-in token has `scope`.
 * @param {Scope} scope
 */
export async function tokenHas(scope) {
  return (await currentToken()).scopes.includes(scope);
}

/**
 * The scopes of the signed-in token: a function telling whether it has a scope (false while unknown).
 * @returns {(scope: Scope) => boolean}
 */
export function useScopes() {
  const [scopes, setScopes] = useState(/** @type {ReadonlySet<string> | null} */ (null));
  useEffect(() => {
    let gone = false;
    currentToken().then(
      (t) => {
        if (!gone) setScopes(new Set(t.scopes));
      },
      () => {},
    );
    return () => {
      gone = true;
    };
  }, []);
  return (scope) => scopes?.has(scope) ?? false;
}
