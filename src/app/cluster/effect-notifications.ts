/**
 * Wakes this instance's effect runner when another instance commits effects for a queue this one
 * drives. On PostgreSQL the executor sends the queue id on a channel at commit (store/effects.ts,
 * notifyEffects) and each instance LISTENs on one connection of its own; without it the holder would
 * only find the work at its next look at the outbox. SQLite has a single instance: nothing to do.
 * A lost connection is opened again after a second; the runner's periodic look covers the gap.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type pg from 'pg';
import { pgPoolOf } from '../../store/connect.js';
import type { Database } from '../../store/database.js';
import { EFFECTS_CHANNEL } from '../../store/effects.js';

export interface EffectNotifications {
  stop(): Promise<void>;
}

export function listenForEffects(
  db: Kysely<Database>,
  onQueue: (queueId: string) => void,
  logger?: Logger,
): EffectNotifications {
  const pool = pgPoolOf(db);
  if (!pool) return { stop: async () => undefined };
  let client: pg.PoolClient | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | null = null;
  let opening: Promise<void> | null = null;

  const open = async (): Promise<void> => {
    try {
      const c = await pool.connect();
      if (stopped) {
        c.release();
        return;
      }
      c.on('notification', (n) => {
        if (n.channel === EFFECTS_CHANNEL && n.payload) onQueue(n.payload);
      });
      c.on('error', (err) => {
        logger?.warn({ err }, 'effect notifications connection lost; reconnecting');
        c.release(err);
        if (client === c) client = null;
        schedule();
      });
      await c.query(`LISTEN ${EFFECTS_CHANNEL}`);
      client = c;
    } catch (err) {
      logger?.warn({ err }, 'could not listen for effect notifications; retrying');
      schedule();
    }
  };
  const schedule = (): void => {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = null;
      opening = open();
    }, 1_000);
  };
  opening = open();

  return {
    async stop() {
      stopped = true;
      if (retry) clearTimeout(retry);
      await opening;
      const c = client;
      client = null;
      if (c) {
        await c.query(`UNLISTEN ${EFFECTS_CHANNEL}`).catch(() => undefined);
        c.release();
      }
    },
  };
}
