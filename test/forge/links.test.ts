import { describe, expect, it } from 'vitest';
import type { RepoSite } from '../../src/forge/links.js';
import { commitWebUrl, prWebUrl, prWebUrlOrGitHubForm } from '../../src/forges.js';

const github: RepoSite = { forge: 'github', host: 'github.com', owner: 'acme', name: 'web' };
const git: RepoSite = { forge: 'git', host: 'git.example.com', owner: 'team', name: 'api', pr_url_template: null };
const templated: RepoSite = { ...git, pr_url_template: 'https://git.example.com/team/api/-/merge_requests/{n}' };
const SHA = '0123456789abcdef0123456789abcdef01234567';

describe('forge links', () => {
  it("links a GitHub repository's PRs and commits in GitHub's form, on any GitHub host", () => {
    expect(prWebUrl(github, 7)).toBe('https://github.com/acme/web/pull/7');
    expect(commitWebUrl(github, SHA)).toBe(`https://github.com/acme/web/commit/${SHA}`);
    expect(prWebUrl({ ...github, host: 'ghe.example.com' }, 7)).toBe('https://ghe.example.com/acme/web/pull/7');
  });

  it("links a PR through the repository's template, every {n} replaced", () => {
    expect(prWebUrl(templated, 7)).toBe('https://git.example.com/team/api/-/merge_requests/7');
    expect(prWebUrl({ ...github, pr_url_template: 'https://review.example.com/{n}?pr={n}' }, 12)).toBe(
      'https://review.example.com/12?pr=12',
    );
    expect(commitWebUrl(templated, SHA)).toBeNull();
  });

  it('knows no address on a plain git forge without a template; the contract fields fall back to GitHub form', () => {
    expect(prWebUrl(git, 7)).toBeNull();
    expect(commitWebUrl(git, SHA)).toBeNull();
    expect(prWebUrlOrGitHubForm(git, 7)).toBe('https://git.example.com/team/api/pull/7');
    expect(prWebUrlOrGitHubForm(templated, 7)).toBe('https://git.example.com/team/api/-/merge_requests/7');
  });
});

describe('gitea forge links', () => {
  const gitea: RepoSite = { forge: 'gitea', host: 'codeberg.org', owner: 'acme', name: 'web', pr_url_template: null };
  it("links PRs and commits in Gitea's form, beside the PR template a connected Gitea repository has", () => {
    expect(prWebUrl(gitea, 7)).toBe('https://codeberg.org/acme/web/pulls/7');
    expect(commitWebUrl(gitea, SHA)).toBe(`https://codeberg.org/acme/web/commit/${SHA}`);
    const underPath = { ...gitea, pr_url_template: 'https://example.com/git/acme/web/pulls/{n}' };
    expect(prWebUrl(underPath, 7)).toBe('https://example.com/git/acme/web/pulls/7');
    expect(commitWebUrl(underPath, SHA)).toBe(`https://example.com/git/acme/web/commit/${SHA}`);
  });
});
