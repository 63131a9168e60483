/**
 * effects.order_key: the chain an effect keeps its place in (store/effects.ts): `run:<id>` for the
 * effects of one test run, `events` for a queue's events, null for wake-ups. An effect is claimed
 * only when no earlier effect of its queue and chain is pending, so the chains run in the order the
 * engine emitted them whoever executes them. Effects written before this column get theirs from
 * their payload (a finished one may be issued again: queue-takeover.ts).
 */
import { sql, type Migration } from 'kysely';
import { dialectOf } from '../dialect.js';

export const effectOrder: Migration = {
  async up(db): Promise<void> {
    await db.schema.alterTable('effects').addColumn('order_key', 'text').execute();
    const runId =
      dialectOf(db) === 'postgres' ? sql`(payload::json ->> 'runId')` : sql`json_extract(payload, '$.runId')`;
    await db
      .updateTable('effects')
      .set({
        order_key: sql`case kind when 'emitEvent' then 'events' when 'scheduleWakeup' then null else 'run:' || ${runId} end`,
      })
      .execute();
    await db.schema
      .createIndex('effects_chain')
      .on('effects')
      .columns(['queue_id', 'order_key', 'status', 'id'])
      .execute();
  },

  async down(db): Promise<void> {
    await db.schema.dropIndex('effects_chain').execute();
    await db.schema.alterTable('effects').dropColumn('order_key').execute();
  },
};
