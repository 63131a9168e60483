/** Hides the password of `scheme://user:password@host/…` URLs (git remotes, database URLs) in anything we log or report. */
export const redact = (text: string): string => text.replace(/(\/\/[^/:@\s]+):[^/@\s]+@/g, '$1:***@');
