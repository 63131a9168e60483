/** Who runs an admin command, as the audit log records it: the operating system's user. */
import { userInfo } from 'node:os';
import type { AuditCaller } from '../audit/audit-log.js';

export function cliCaller(): AuditCaller {
  let name: string | undefined;
  try {
    name = userInfo().username;
  } catch {
    // No passwd entry for the process's uid (some containers): the environment may still say.
  }
  return { cliUser: name || process.env.USER || process.env.LOGNAME || `uid ${process.getuid?.() ?? 'unknown'}` };
}
