/**
 * A forge is its folder and one line in the list (src/forges.ts; ARCHITECTURE.md, "Adding a forge"):
 * every listed forge has a contract world with its test file and a docs page, and no file of src/
 * outside its folder and the list names it — neither by importing from its folder nor by its name
 * as a quoted string — but for the few places below, each saying why.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { FORGES } from '../../src/forges.js';
import { WORLDS } from '../contract/worlds.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const src = join(root, 'src');

/** The list itself: the one file that names every forge. */
const LIST = 'forges.ts';

/** Contract worlds named after a dialect of a forge rather than the forge: Forgejo is served by the gitea forge. */
const DIALECTS: Readonly<Record<string, string>> = { forgejo: 'gitea' };

/**
 * Where a forge's name may stand outside its folder, by file (relative to src/) and name, with the
 * reason. Everything else is the list's or the forge's own.
 */
const ALLOWED: Readonly<Record<string, { names: readonly string[]; why: string }>> = {
  'git/git.ts': { names: ['git'], why: 'the git binary it spawns, not the forge' },
  'api/v2/wire.ts': {
    names: ['github'],
    why: "Trunk's v2 API names a repository's `provider`, and github is the one it knows: the wire maps the github forge to Trunk's word",
  },
  'store/migrations/017-forge-deliveries.ts': {
    names: ['github'],
    why: 'a migration is frozen in time: the deliveries stored before it came from the github forge',
  },
  'app/admin/ci-claims.ts': {
    names: ['github'],
    why: "the claims table of GitHub Actions' OIDC issuer: the repositories its tokens name are on the github forge",
  },
  'cli/demo.ts': { names: ['git'], why: "the demo's repositories are local git remotes, connected with the git forge" },
  'ci/command/command-ci.ts': {
    names: ['git'],
    why: 'the command CI fetches a git-forge repository from its remote and any other from its https clone URL (a clone URL per forge is not part of the definitions yet)',
  },
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

const posix = (path: string): string => path.split(sep).join('/');

/** The quoted strings of a file (string literals and templates without substitutions). */
function quotedStrings(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) found.push(node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Each naming of a forge outside its folder and the list: `file: 'name'` or `file: imports forge/name/…`. */
function namings(): string[] {
  const names = FORGES.map((f) => f.name as string);
  return sourceFiles(src).flatMap((path) => {
    const file = posix(relative(src, path));
    if (file === LIST) return [];
    const own = names.find((name) => file.startsWith(`forge/${name}/`));
    const text = readFileSync(path, 'utf8');
    const allowed = ALLOWED[file]?.names ?? [];
    const quoted = quotedStrings(file, text)
      .filter((s) => names.includes(s) && s !== own && !allowed.includes(s))
      .map((s) => `${file}: '${s}'`);
    const imports = ts
      .preProcessFile(text, true, true)
      .importedFiles.map(({ fileName }) => fileName)
      .filter((fileName) => fileName.startsWith('.'))
      .map((fileName) => posix(relative(src, resolve(dirname(path), fileName))))
      .filter((to) => names.some((name) => name !== own && to.startsWith(`forge/${name}/`)))
      .map((to) => `${file}: imports ${to}`);
    return [...new Set([...quoted, ...imports])];
  });
}

describe('the forges', () => {
  it('are listed once each', () => {
    const names = FORGES.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
  });

  for (const forge of FORGES) {
    describe(forge.name, () => {
      it('has a contract world, and the test file that runs the contract in it', () => {
        const worlds = WORLDS.filter((w) => (DIALECTS[w.name] ?? w.name) === forge.name);
        expect(
          worlds.map((w) => w.name),
          `a world of test/contract/worlds.ts for ${forge.name}`,
        ).not.toEqual([]);
        for (const w of worlds)
          expect(
            [`${w.name}.test.ts`, `${w.name}.slow.test.ts`].some((f) => existsSync(join(root, 'test', 'contract', f))),
            `test/contract/${w.name}.test.ts or ${w.name}.slow.test.ts`,
          ).toBe(true);
      });

      // The git forge's page is docs/git-forge.md: docs/git.md would read as a page about git itself.
      it('has its docs page: docs/<name>.md, or docs/<name>-forge.md', () => {
        const pages = [`${forge.name}.md`, `${forge.name}-forge.md`].filter((p) => existsSync(join(root, 'docs', p)));
        expect(pages, `docs/${forge.name}.md`).not.toEqual([]);
      });
    });
  }

  it('are named in src/ only in their own folders and the list (but for the places allowed, each saying why)', () => {
    expect(namings()).toEqual([]);
  });

  it('leave no stale entry in the allowed places', () => {
    const names = FORGES.map((f) => f.name as string);
    const stale = Object.entries(ALLOWED).flatMap(([file, { names: allowed }]) => {
      const path = join(src, file);
      const quoted = existsSync(path) ? quotedStrings(file, readFileSync(path, 'utf8')) : [];
      return allowed.filter((name) => !names.includes(name) || !quoted.includes(name)).map((n) => `${file}: '${n}'`);
    });
    expect(stale).toEqual([]);
  });
});
