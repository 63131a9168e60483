/**
 * The committed subset of GitHub's descriptions (test/fixtures/github/) is what
 * scripts/github-description-subset.ts makes of the installed @octokit/openapi and
 * @octokit/openapi-webhooks: when a new version of either moves an operation or a schema the fake
 * relies on, or the fake serves an operation the subset lacks, this fails until the subset is
 * written again (`npx tsx scripts/github-description-subset.ts`).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { githubDescriptionSubset, SUBSET_FILES } from '../../../scripts/github-description-subset.js';

describe("the subset of GitHub's descriptions the fake reads", () => {
  it('is what the installed packages give for the operations and webhooks the fake serves', () => {
    const made = githubDescriptionSubset();
    // Compared as text but not printed whole: the files are megabytes.
    expect(made.openapi === readFileSync(SUBSET_FILES.openapi, 'utf8'), `${SUBSET_FILES.openapi} is stale`).toBe(true);
    expect(made.webhooks === readFileSync(SUBSET_FILES.webhooks, 'utf8'), `${SUBSET_FILES.webhooks} is stale`).toBe(
      true,
    );
  });
});
