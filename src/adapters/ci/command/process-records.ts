/**
 * The CI process groups of a data dir, on disk: `<dataDir>/ci-processes/<runId>.json`, written when a
 * command starts and removed once its group is gone. A command runs in a session of its own, outside
 * the server's process group, so a server killed without stopping its commands (kill -9, a crash)
 * leaves them running; the next server on the data dir stops them at start-up (`stopLeftoverGroups`).
 *
 * A record holds the group id, the run id, the group leader's start time (clock ticks since boot,
 * field 22 of /proc/<pid>/stat) and the boot id. Before a group is signalled it is checked to be the
 * one recorded, never a stranger that got the number since (pid reuse): after a reboot nothing is
 * ours; a living leader must have the recorded start time; when the leader is gone, the group is ours
 * only if one of its processes started no earlier than the leader and carries the run's
 * `GREENLINE_TEST_RUN_ID` in its environment (a pid is not reused while a group holds it as its id).
 *
 * Linux only (/proc): elsewhere groups are recorded but never verified, so never stopped.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { systemClock, type TimerClock } from '../../../lib/clock.js';
import { terminateGroup } from './process-group.js';

export interface GroupRecord {
  runId: string;
  pgid: number;
  /** The leader's start time in clock ticks since boot; null when it could not be read. */
  startTicks: number | null;
  bootId: string | null;
  /** When the command started (ms since the epoch). */
  startedAt: number;
}

export class ProcessRecords {
  constructor(
    private readonly dir: string,
    private readonly clock: TimerClock = systemClock,
  ) {}

  /**
   * Records the group just spawned. Synchronous on purpose: nothing else runs between the spawn and
   * the record, so a server killed right after starting a command still leaves the record behind.
   */
  record(runId: string, pgid: number): void {
    const stat = readStatSync(pgid);
    const rec: GroupRecord = {
      runId,
      pgid,
      startTicks: stat?.startTicks ?? null,
      bootId: readBootIdSync(),
      startedAt: this.clock.now(),
    };
    mkdirSync(this.dir, { recursive: true });
    writeFileSync(this.file(runId), `${JSON.stringify(rec)}\n`);
  }

  async forget(runId: string): Promise<void> {
    await rm(this.file(runId), { force: true });
  }

  /**
   * Stops (SIGTERM, SIGKILL after `graceMs`) every recorded group that is still alive and verified to
   * be ours, except the runs `keep` claims (this process's own); forgets every record it handled.
   * Returns the records of the groups stopped.
   */
  async stopLeftoverGroups(keep: (runId: string) => boolean, graceMs: number): Promise<GroupRecord[]> {
    const records = await this.list();
    const stopped: GroupRecord[] = [];
    const processes = records.some((r) => !keep(r.runId)) ? await listProcesses() : [];
    await Promise.all(
      records
        .filter((r) => !keep(r.runId))
        .map(async (rec) => {
          if (await isOurs(rec, processes)) {
            await terminateGroup(rec.pgid, graceMs, this.clock);
            stopped.push(rec);
          }
          // Another run with this id may have started meanwhile (a queue taken over): its record stays.
          if (!keep(rec.runId)) await this.forget(rec.runId);
        }),
    );
    return stopped;
  }

  private async list(): Promise<GroupRecord[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const records: GroupRecord[] = [];
    for (const name of names.filter((n) => n.endsWith('.json'))) {
      try {
        records.push(JSON.parse(await readFile(path.join(this.dir, name), 'utf8')) as GroupRecord);
      } catch {
        // Cut short by a crash while it was written: the group cannot be verified; drop the record.
        await rm(path.join(this.dir, name), { force: true });
      }
    }
    return records;
  }

  private file(runId: string): string {
    return path.join(this.dir, `${runId}.json`);
  }
}

interface ProcStat {
  pid: number;
  pgid: number;
  startTicks: number;
}

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses). */
function parseStat(pid: number, text: string): ProcStat | null {
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state): field N is rest[N - 3]. pgrp is field 5, starttime field 22.
  const pgid = Number(rest[2]);
  const startTicks = Number(rest[19]);
  return Number.isInteger(pgid) && Number.isInteger(startTicks) ? { pid, pgid, startTicks } : null;
}

function readStatSync(pid: number): ProcStat | null {
  const text = readFileSyncOrNull(`/proc/${pid}/stat`);
  return text === null ? null : parseStat(pid, text);
}

function readBootIdSync(): string | null {
  return readFileSyncOrNull('/proc/sys/kernel/random/boot_id')?.trim() ?? null;
}

function readFileSyncOrNull(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** Every process /proc shows (those that exit while it is read are left out). */
async function listProcesses(): Promise<ProcStat[]> {
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return [];
  }
  const stats = await Promise.all(
    names
      .filter((n) => /^\d+$/.test(n))
      .map(async (n) => {
        try {
          return parseStat(Number(n), await readFile(`/proc/${n}/stat`, 'utf8'));
        } catch {
          return null;
        }
      }),
  );
  return stats.filter((s): s is ProcStat => s !== null);
}

async function hasRunMarker(pid: number, runId: string): Promise<boolean> {
  try {
    return (await readFile(`/proc/${pid}/environ`, 'utf8')).split('\0').includes(`GREENLINE_TEST_RUN_ID=${runId}`);
  } catch {
    return false;
  }
}

/** Whether the recorded group is alive and the same group (see the module comment). */
async function isOurs(rec: GroupRecord, processes: readonly ProcStat[]): Promise<boolean> {
  if (rec.startTicks === null || rec.bootId === null || rec.bootId !== readBootIdSync()) return false;
  const leader = processes.find((p) => p.pid === rec.pgid);
  if (leader) return leader.pgid === rec.pgid && leader.startTicks === rec.startTicks;
  for (const p of processes) {
    if (p.pgid === rec.pgid && p.startTicks >= rec.startTicks && (await hasRunMarker(p.pid, rec.runId))) return true;
  }
  return false;
}
