/** Hides the password of `scheme://user:password@host/…` URLs (git remotes, database URLs) in anything we log or report. */
export const redact = (text: string): string => text.replace(/(\/\/[^/:@\s]+):[^/@\s]+@/g, '$1:***@');

/**
 * A configuration value as a message may show it: a secret (a token, a webhook secret) only by its
 * kind, anything else as JSON with the passwords of its URLs hidden.
 */
export const shownValue = (value: unknown, secret: boolean): string =>
  secret
    ? `a ${value === null ? 'null' : Array.isArray(value) ? 'list' : typeof value} (not shown: it is a secret)`
    : redact(JSON.stringify(value) ?? String(value));
