/**
 * Which `--remote` values are local paths, and where they point. git reads a remote as a URL when it
 * has a scheme (`https://…`, `file://…`, `ssh://…`) or is scp-like (`[user@]host:path`, a colon before
 * any slash); anything else is a path. git resolves a relative path against the directory it runs in,
 * which for greenline is a mirror under the data dir: so a path is stored absolute, resolved against
 * the directory the user gave it in.
 */
import path from 'node:path';

/** True when git reads `remote` as a path on this machine rather than a URL. */
export function isLocalPath(remote: string): boolean {
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(remote)) return false;
  const colon = remote.indexOf(':');
  const slash = remote.indexOf('/');
  return colon < 0 || (slash >= 0 && slash < colon);
}

/** `remote` as greenline stores it: a local path made absolute against `cwd`, a URL unchanged. */
export function absoluteRemote(remote: string, cwd: string): string {
  return isLocalPath(remote) ? path.resolve(cwd, remote) : remote;
}
