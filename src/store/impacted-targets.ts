/** Impacted targets per (repository, PR, head sha); the last upload for a sha wins (contract §2.6). */
import type { Kysely } from 'kysely';
import type { ImpactedTargets } from '../engine/types.js';
import type { Database } from './database.js';
import { prepare } from './prepared.js';

export async function upsertImpactedTargets(
  db: Kysely<Database>,
  repoId: string,
  prNumber: number,
  headSha: string,
  targets: ImpactedTargets,
  at: number,
): Promise<void> {
  await db
    .insertInto('impacted_targets')
    .values({
      repo_id: repoId,
      pr_number: prNumber,
      head_sha: headSha,
      targets: JSON.stringify(targets),
      updated_at: at,
    })
    .onConflict((oc) =>
      oc.columns(['repo_id', 'pr_number', 'head_sha']).doUpdateSet((eb) => ({
        targets: eb.ref('excluded.targets'),
        updated_at: eb.ref('excluded.updated_at'),
      })),
    )
    .execute();
}

const targetsOf = prepare((db, p: { repoId: string; prNumber: number; headSha: string }) =>
  db
    .selectFrom('impacted_targets')
    .select('targets')
    .where('repo_id', '=', p.repoId)
    .where('pr_number', '=', p.prNumber)
    .where('head_sha', '=', p.headSha),
);

export async function findImpactedTargets(
  db: Kysely<Database>,
  repoId: string,
  prNumber: number,
  headSha: string,
): Promise<ImpactedTargets | null> {
  const [row] = await targetsOf(db, { repoId, prNumber, headSha });
  return row ? (JSON.parse(row.targets) as ImpactedTargets) : null;
}
