/**
 * Gitea's and Forgejo's own Swagger 2.0 documents (docs: ../shared/spec/forges/README.md, copied into
 * test/fixtures/gitea/) as the referee of the fake of each dialect (fake-gitea-api.ts,
 * test/doubles/api-description.ts): one description per dialect, loaded once per process.
 *
 * What a server built from Go structs does that its document does not say, allowed for every
 * definition: a property that is a pointer, slice or map in Go (a `$ref`, an array, an object, a
 * date-time) may be `null`. Error answers any route may give carry `{ message, url }` (errata:
 * documented as headers, sent as a body). Departures of the documents from their servers (a value the
 * server sends that an enum lacks) are the `ALLOWANCES`, each named where it is made.
 */
import { readFileSync } from 'node:fs';
import { ApiDescription, type Json } from '../../doubles/api-description.js';

export type Dialect = 'gitea' | 'forgejo';

/** A schema change one document needs to describe what its server sends: `definition.property` takes `also`. */
interface Allowance {
  definition: string;
  property: string;
  /** Values the server sends beside the enum's. */
  also: unknown[];
  why: string;
}

/**
 * Where the documents differ from their servers (the reference data's errata): a commit with no
 * statuses has the combined state `""` (Gitea returns an empty CombinedStatus), which neither enum
 * lists; a PR not merged has `merge_commit_sha: null` (a `*string` in Go, null in the captured payloads).
 */
const ALLOWANCES: Allowance[] = [
  {
    definition: 'CombinedStatus',
    property: 'state',
    also: [''],
    why: 'a commit without statuses answers an empty CombinedStatus, state ""',
  },
  {
    definition: 'PullRequest',
    property: 'merge_commit_sha',
    also: [null],
    why: 'MergedCommitID is a *string: null until the PR is merged',
  },
];

/**
 * Fields a server binds under another name than its document spells (each binds JSON matching names
 * ignoring case and ignores fields it does not know): the merge form's merge commit is `MergeCommitID`
 * on Gitea 1.26 (a Go field without a json tag) and on Forgejo, `merge_commit_id` in Gitea 1.28's
 * document. A client that works with every version sends both; each document takes the other.
 */
const OTHER_SPELLINGS: Record<Dialect, { definition: string; property: string }[]> = {
  gitea: [{ definition: 'MergePullRequestOption', property: 'MergeCommitID' }],
  forgejo: [{ definition: 'MergePullRequestOption', property: 'merge_commit_id' }],
};

/** Statuses any route may answer with an error body, documented or not (auth, validation, server errors). */
const ANY_ROUTE = new Set([401, 403, 404, 422, 500]);

/**
 * An error the server writes itself rather than through its API error (the merge route's `409 {}`:
 * Gitea writes the error value, whose fields are not exported) has no message.
 */
const ERROR_BODY: Json = {
  type: 'object',
  properties: { message: { type: 'string' }, url: { type: 'string' } },
};

const loaded = new Map<Dialect, ApiDescription>();

export function giteaDescription(dialect: Dialect): ApiDescription {
  let d = loaded.get(dialect);
  if (!d) {
    const file = new URL(`../../fixtures/gitea/${dialect}-swagger.json`, import.meta.url);
    const doc = JSON.parse(readFileSync(file, 'utf8')) as Json;
    const definitions = doc.definitions as Record<string, Json>;
    for (const a of ALLOWANCES) {
      const props = definitions[a.definition]?.properties as Record<string, Json> | undefined;
      if (!props?.[a.property]) throw new Error(`allowance for ${a.definition}.${a.property}: no such property`);
      props[a.property] = { anyOf: [{ enum: a.also }, props[a.property]] };
    }
    for (const o of OTHER_SPELLINGS[dialect]) {
      const props = definitions[o.definition]?.properties as Record<string, Json> | undefined;
      if (!props) throw new Error(`other spelling for ${o.definition}: no such definition`);
      props[o.property] = { type: 'string' };
    }
    for (const def of Object.values(definitions)) nullableGoFields(def);
    d = new ApiDescription(doc, { name: dialect, anyOperation: ANY_ROUTE, errorBody: ERROR_BODY });
    loaded.set(dialect, d);
  }
  return d;
}

/** Properties that are pointers, slices, maps or times in Go may come back `null`: in place. */
function nullableGoFields(def: Json): void {
  const props = def.properties as Record<string, Json> | undefined;
  if (!props) return;
  for (const [name, p] of Object.entries(props)) {
    const pointerLike =
      typeof p.$ref === 'string' ||
      p.type === 'array' ||
      p.type === 'object' ||
      (p.type === 'string' && p.format === 'date-time');
    if (pointerLike) props[name] = { anyOf: [{ type: 'null' }, p] };
    if (p.type === 'object') nullableGoFields(p);
  }
}
