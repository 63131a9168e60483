/**
 * Gitea's and Forgejo's own Swagger documents (docs: ../shared/spec/forges/README.md, copied into
 * test/fixtures/gitea/) as checkers for the fake of each dialect (fake-gitea-api.ts): one
 * SwaggerDescription per dialect, loaded once per process.
 */
import { fileURLToPath } from 'node:url';
import { type Allowance, SwaggerDescription } from '../../doubles/swagger-description.js';

export type Dialect = 'gitea' | 'forgejo';

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

const loaded = new Map<Dialect, SwaggerDescription>();

export function giteaDescription(dialect: Dialect): SwaggerDescription {
  let d = loaded.get(dialect);
  if (!d) {
    const file = fileURLToPath(new URL(`../../fixtures/gitea/${dialect}-swagger.json`, import.meta.url));
    d = new SwaggerDescription(file, dialect, ALLOWANCES);
    loaded.set(dialect, d);
  }
  return d;
}
