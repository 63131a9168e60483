/**
 * The repositories of `greenline demo`: bare git repositories whose `main` holds a small project (a
 * README, feature files and `test.sh`), and one commit per pull request published at
 * `refs/pull/<n>/head` (the git forge's default PR ref pattern). Commits are written with git plumbing
 * straight into the bare repository.
 *
 * - `shop` (SHOP): 15 PRs for a single-mode queue; some break the project's test, two change the same
 *   line of settings.conf (whichever merges second conflicts), the rest pass.
 * - `api` (API): 10 PRs in three areas for a parallel queue that batches: each area's three PRs are
 *   one batch in their own lane; one PR breaks the test, so its batch fails and is bisected; the
 *   tenth PR has no impacted targets and waits NOT_READY.
 */
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { git } from '../git/git.js';

/** What the demo expects of a PR: its test passes, fails, or it conflicts with an earlier PR. */
export type DemoOutcome = 'pass' | 'fail' | 'conflict';

export interface DemoPr {
  number: number;
  title: string;
  author: string;
  /** Files the PR adds or changes. */
  files: Record<string, string>;
  /** Impacted target of the PR (its area of the project), for a parallel queue; empty: none uploaded. */
  area: string;
  outcome: DemoOutcome;
}

export interface DemoRepo {
  /** Path of the bare repository: the `--remote` of the connection. */
  remote: string;
  /** The commit `main` starts at. */
  baseSha: string;
  prs: (DemoPr & { headSha: string })[];
}

/**
 * The project's check: every feature file must say `works`. Sleeping `seconds` makes a run last long
 * enough to watch.
 */
const testScript = (seconds: number): string =>
  [
    '#!/bin/sh',
    '# The demo project\'s test: every feature file must say "works".',
    'echo "Testing commit $GREENLINE_TEST_SHA (PRs $GREENLINE_PR_NUMBERS)"',
    `sleep ${seconds}`,
    'status=0',
    'for f in features/*.txt; do',
    '  if grep -qx works "$f"; then echo "ok    $f"; else echo "FAIL  $f: expected \\"works\\", found \\"$(cat "$f")\\""; status=1; fi',
    'done',
    'exit $status',
    '',
  ].join('\n');

/** settings.conf serving on `port`: the line the two config PRs both change. */
const settings = (port: number): Record<string, string> => ({
  'settings.conf': `name = shop\nport = ${port}\nlog = info\n`,
});

const AUTHORS = ['Ada Lovelace', 'Grace Hopper', 'Alan Turing', 'Edsger Dijkstra', 'Barbara Liskov'];

interface PrSpec {
  title: string;
  area: string;
  outcome: DemoOutcome;
  files?: Record<string, string>;
}

/** One demo repository: its name (`<name>.git`, `acme/<name>`), what `main` holds, its PRs in submission order. */
export interface DemoProject {
  name: string;
  baseFiles: Record<string, string>;
  prs: PrSpec[];
}

/** The demo's first repository: 15 PRs for a single-mode queue. */
export const SHOP: DemoProject = {
  name: 'shop',
  baseFiles: {
    'README.md': "# shop\n\nA tiny project that greenline's demo merges pull requests into.\n",
    ...settings(8000),
    'features/checkout.txt': 'works\n',
    'test.sh': testScript(2),
  },
  prs: [
    { title: 'Add product search', area: 'web', outcome: 'pass' },
    { title: 'Add a wish list', area: 'web', outcome: 'pass' },
    { title: 'Expose the orders API', area: 'api', outcome: 'pass' },
    { title: 'Add gift cards', area: 'api', outcome: 'fail' },
    { title: 'Document the install steps', area: 'docs', outcome: 'pass' },
    { title: 'Serve on port 9000', area: 'config', outcome: 'pass', files: settings(9000) },
    { title: 'Add product reviews', area: 'web', outcome: 'pass' },
    { title: 'Rate-limit the API', area: 'api', outcome: 'pass' },
    { title: 'Add a currency switcher', area: 'web', outcome: 'fail' },
    { title: 'Document the API', area: 'docs', outcome: 'pass' },
    { title: 'Serve on port 7000', area: 'config', outcome: 'conflict', files: settings(7000) },
    { title: 'Add order tracking', area: 'api', outcome: 'pass' },
    { title: 'Add a dark theme', area: 'web', outcome: 'fail' },
    { title: 'Add a changelog', area: 'docs', outcome: 'pass' },
    { title: 'Add newsletter sign-up', area: 'web', outcome: 'pass' },
  ],
};

/**
 * The demo's second repository, for a parallel queue that batches three PRs at a time: three areas
 * (lanes) of three PRs, #2 breaks the test (its batch fails and is bisected), and #10 is submitted
 * without impacted targets (area empty), so it waits NOT_READY. Its test takes longer than the
 * shop's, so batches and bisections can be watched.
 */
export const API: DemoProject = {
  name: 'api',
  baseFiles: {
    'README.md': "# api\n\nA tiny service that greenline's demo merges batches of pull requests into.\n",
    'features/health.txt': 'works\n',
    'test.sh': testScript(6),
  },
  prs: [
    { title: 'Add invoices', area: 'billing', outcome: 'pass' },
    { title: 'Add refunds', area: 'billing', outcome: 'fail' },
    { title: 'Add tax rates', area: 'billing', outcome: 'pass' },
    { title: 'Index the catalogue', area: 'search', outcome: 'pass' },
    { title: 'Add search filters', area: 'search', outcome: 'pass' },
    { title: 'Rank results by popularity', area: 'search', outcome: 'pass' },
    { title: 'Sign in with passkeys', area: 'auth', outcome: 'pass' },
    { title: 'Expire idle sessions', area: 'auth', outcome: 'pass' },
    { title: 'Add two-factor codes', area: 'auth', outcome: 'pass' },
    { title: 'Document the webhooks', area: '', outcome: 'pass' },
  ],
};

const slug = (title: string): string =>
  title
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** A demo project's pull requests without a repository: what each changes and what should become of it. */
export function demoPrs(project: DemoProject = SHOP): DemoPr[] {
  return project.prs.map((spec, i) => ({
    number: i + 1,
    title: spec.title,
    author: AUTHORS[i % AUTHORS.length]!,
    area: spec.area,
    outcome: spec.outcome,
    files: spec.files ?? { [`features/${slug(spec.title)}.txt`]: spec.outcome === 'fail' ? 'broken\n' : 'works\n' },
  }));
}

/** Creates `<dir>/<project>.git` (replacing one left there) with `main` and the PR refs. */
export async function buildDemoRepo(dir: string, project: DemoProject = SHOP): Promise<DemoRepo> {
  const remote = path.join(dir, `${project.name}.git`);
  await rm(remote, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await git(['init', '--quiet', '--bare', '--initial-branch=main', remote], { cwd: dir });

  let commits = 0;
  const commit = async (
    parent: string | null,
    files: Record<string, string>,
    message: string,
    author: string,
  ): Promise<string> => {
    const index = path.join(remote, `demo-index-${++commits}`);
    const email = `${author.toLowerCase().replace(/[^a-z]+/g, '.')}@example.com`;
    const env = {
      GIT_INDEX_FILE: index,
      GIT_AUTHOR_NAME: author,
      GIT_AUTHOR_EMAIL: email,
      GIT_COMMITTER_NAME: author,
      GIT_COMMITTER_EMAIL: email,
    };
    await git(parent ? ['read-tree', parent] : ['read-tree', '--empty'], { cwd: remote, env });
    for (const [file, content] of Object.entries(files)) {
      const blob = await git(['hash-object', '-w', '--stdin'], { cwd: remote, env, input: content });
      const mode = file.endsWith('.sh') ? '100755' : '100644';
      await git(['update-index', '--add', '--cacheinfo', `${mode},${blob},${file}`], { cwd: remote, env });
    }
    const tree = await git(['write-tree'], { cwd: remote, env });
    await rm(index, { force: true });
    return git(['commit-tree', tree, ...(parent ? ['-p', parent] : [])], { cwd: remote, env, input: `${message}\n` });
  };

  const baseSha = await commit(null, project.baseFiles, 'Initial commit', 'Ada Lovelace');
  await git(['update-ref', 'refs/heads/main', baseSha], { cwd: remote });
  const prs: DemoRepo['prs'] = [];
  for (const pr of demoPrs(project)) {
    const headSha = await commit(baseSha, pr.files, pr.title, pr.author);
    await git(['update-ref', `refs/pull/${pr.number}/head`, headSha], { cwd: remote });
    prs.push({ ...pr, headSha });
  }
  return { remote, baseSha, prs };
}
