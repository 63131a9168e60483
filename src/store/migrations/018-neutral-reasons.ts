/**
 * A merge the forge refused is recorded in forge-neutral words: `MERGE_REFUSED` and
 * `DIRECT_MERGE_REFUSED` instead of Trunk's GitHub-named `GITHUB_API_MERGE_PR_FAILED` and
 * `GITHUB_API_DIRECT_MERGE_PR_FAILED`, which the wires still send (engine/trunk-names.ts). The rows
 * written before are rewritten, so the store holds one vocabulary: the transitions' reason, and the
 * JSON the engine's records are kept in (entries, test runs, queue bookkeeping, queue events, effects),
 * where each code is a whole JSON string, replaced quotes included so that no other text matches.
 * The delivery outboxes are left as they are: their bodies are what was sent, in Trunk's words.
 */
import { sql, type Kysely, type Migration } from 'kysely';

const RENAMED: [trunk: string, neutral: string][] = [
  ['GITHUB_API_MERGE_PR_FAILED', 'MERGE_REFUSED'],
  ['GITHUB_API_DIRECT_MERGE_PR_FAILED', 'DIRECT_MERGE_REFUSED'],
];

/** The tables' JSON columns that hold the engine's codes. */
const JSON_COLUMNS: [table: string, column: string][] = [
  ['entries', 'data'],
  ['test_runs', 'data'],
  ['queues', 'internal'],
  ['queue_events', 'payload'],
  ['effects', 'payload'],
];

async function rename(db: Kysely<unknown>, from: string, to: string): Promise<void> {
  await sql`update transitions set reason = ${to} where reason = ${from}`.execute(db);
  const [quotedFrom, quotedTo] = [JSON.stringify(from), JSON.stringify(to)];
  for (const [table, column] of JSON_COLUMNS) {
    await sql`update ${sql.table(table)} set ${sql.ref(column)} = replace(${sql.ref(column)}, ${quotedFrom}, ${quotedTo})
      where ${sql.ref(column)} like ${`%${quotedFrom}%`}`.execute(db);
  }
}

export const neutralReasons: Migration = {
  async up(db): Promise<void> {
    for (const [trunk, neutral] of RENAMED) await rename(db, trunk, neutral);
  },

  async down(db): Promise<void> {
    for (const [trunk, neutral] of RENAMED) await rename(db, neutral, trunk);
  },
};
