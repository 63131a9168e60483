/**
 * The file graph of src/: which file imports which, read with the TypeScript parser. An import is a
 * runtime edge unless it is type-only — `import type`, `export type … from`, or an import or export
 * whose every name is marked `type` — since the compiler erases those and Node never loads the file.
 * A dynamic `import()` is a runtime edge; a type position's `import('…').T` is a type-only edge.
 * Relative imports name files by their path under src/ (`store/connect.ts`); anything else names a
 * package (`kysely`, `@fastify/rate-limit`, `node:fs`).
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join, posix, relative, sep } from 'node:path';
import ts from 'typescript';
import { folderCycles } from './folder-graph.js';

export interface FileImport {
  /** The importing file, under src/. */
  from: string;
  /** The imported file under src/, or a package's name. */
  to: string;
  /** As written in the import. */
  specifier: string;
  /** Whether the import loads the module when the program runs. */
  runtime: boolean;
  line: number;
}

export interface FileGraph {
  files: string[];
  imports: FileImport[];
}

interface Specifier {
  specifier: string;
  runtime: boolean;
  line: number;
}

/** Every name of the clause is marked `type` (and there is at least one). */
const allTypeOnly = (elements: ts.NodeArray<ts.ImportSpecifier | ts.ExportSpecifier>): boolean =>
  elements.length > 0 && elements.every((e) => e.isTypeOnly);

function importRuntime(clause: ts.ImportClause | undefined): boolean {
  if (!clause) return true;
  if (clause.isTypeOnly) return false;
  if (clause.name) return true;
  const bindings = clause.namedBindings;
  return !(bindings && ts.isNamedImports(bindings) && allTypeOnly(bindings.elements));
}

function exportRuntime(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return false;
  const clause = node.exportClause;
  return !(clause && ts.isNamedExports(clause) && allTypeOnly(clause.elements));
}

/** The modules one source text imports, each with whether it loads them at run time. */
export function specifiersOf(fileName: string, text: string): Specifier[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: Specifier[] = [];
  const add = (literal: ts.Expression | undefined, runtime: boolean): void => {
    if (!literal || !ts.isStringLiteralLike(literal)) return;
    const line = source.getLineAndCharacterOfPosition(literal.getStart(source)).line + 1;
    found.push({ specifier: literal.text, runtime, line });
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) add(node.moduleSpecifier, importRuntime(node.importClause));
    else if (ts.isExportDeclaration(node)) add(node.moduleSpecifier, exportRuntime(node));
    else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference))
      add(node.moduleReference.expression, !node.isTypeOnly);
    else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)
      add(node.arguments[0], true);
    else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument))
      add(node.argument.literal as ts.Expression, false);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** `@scope/name/sub` → `@scope/name`, `luxon/x` → `luxon`, `fs` → `node:fs`. */
function packageOf(specifier: string): string {
  if (!specifier.startsWith('node:') && isBuiltin(specifier)) return `node:${specifier.split('/')[0]}`;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** The file a relative specifier names: `./x.js` is `./x.ts`, `./dir` is `./dir/index.ts`. */
function resolveRelative(from: string, specifier: string, files: ReadonlySet<string>): string {
  const target = posix.normalize(posix.join(posix.dirname(from), specifier));
  const candidates = [target.replace(/\.js$/, '.ts'), `${target}.ts`, `${target}/index.ts`, target];
  return candidates.find((c) => files.has(c)) ?? target;
}

/** The graph of these source texts, keyed by their path under src/ (with `/`). */
export function fileGraphOf(sources: Readonly<Record<string, string>>): FileGraph {
  const files = Object.keys(sources).sort();
  const known = new Set(files);
  const imports = files.flatMap((from) =>
    specifiersOf(from, sources[from]!).map(({ specifier, runtime, line }) => ({
      from,
      to: specifier.startsWith('.') ? resolveRelative(from, specifier, known) : packageOf(specifier),
      specifier,
      runtime,
      line,
    })),
  );
  return { files, imports };
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

export function fileGraph(srcDir: string): FileGraph {
  return fileGraphOf(
    Object.fromEntries(
      sourceFiles(srcDir).map((file) => [relative(srcDir, file).split(sep).join('/'), readFileSync(file, 'utf8')]),
    ),
  );
}

/** The runtime edges between files of the graph, as folder-graph's cycle finder takes them. */
function runtimeEdges(graph: FileGraph): Map<string, Map<string, string>> {
  const known = new Set(graph.files);
  const edges = new Map<string, Map<string, string>>();
  for (const { from, to, runtime } of graph.imports) {
    if (!runtime || !known.has(to)) continue;
    const out = edges.get(from) ?? new Map<string, string>();
    out.set(to, from);
    edges.set(from, out);
  }
  return edges;
}

/** The shortest runtime path from `start` back to itself, staying inside `members`. */
function shortestLoop(edges: Map<string, Map<string, string>>, start: string, members: Set<string>): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const node = queue[i]!;
    for (const next of [...(edges.get(node)?.keys() ?? [])].sort()) {
      if (!members.has(next)) continue;
      if (next === start) {
        const path = [node];
        while (path[0] !== start) path.unshift(previous.get(path[0]!)!);
        return [...path, start];
      }
      if (previous.has(next)) continue;
      previous.set(next, node);
      queue.push(next);
    }
  }
  return [];
}

/**
 * The runtime import cycles between files, each a path of files that ends where it starts. Every
 * file that lies on a loop is on at least one of the paths: for each group of files that reach
 * each other, the shortest loop through each of its files not yet on a listed path.
 */
export function runtimeCycles(graph: FileGraph): string[][] {
  const edges = runtimeEdges(graph);
  const selfLoops = [...edges].filter(([file, out]) => out.has(file)).map(([file]) => [file, file]);
  return [
    ...selfLoops,
    ...folderCycles({ edges }).flatMap((component) => {
      const members = new Set(component);
      const covered = new Set<string>();
      const loops: string[][] = [];
      for (const file of component) {
        if (covered.has(file)) continue;
        const loop = shortestLoop(edges, file, members);
        for (const f of loop) covered.add(f);
        loops.push(loop);
      }
      return loops;
    }),
  ];
}

/**
 * A never-rule: no file that `applies` to may import (type-only imports included) anything that
 * `forbids` names. `to` is a file under src/ or a package.
 */
export interface LayerRule {
  name: string;
  applies: (from: string) => boolean;
  forbids: (to: string, from: string) => boolean;
}

/** The imports that break a rule, as "file:line imports target ('specifier')". */
export function ruleViolations(graph: FileGraph, rule: LayerRule): string[] {
  return graph.imports
    .filter(({ from, to }) => rule.applies(from) && rule.forbids(to, from))
    .map(({ from, to, specifier, line }) => `${from}:${line} imports ${to} ('${specifier}')`);
}
