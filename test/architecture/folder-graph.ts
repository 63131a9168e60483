/**
 * The folder graph of src/: which folder imports which. A folder is a top-level folder of src/
 * (`app`, `engine`, `store` …), one adapter (`forge/<name>` or `ci/<name>`: a folder of src/forge/ or
 * src/ci/), or a file at the top of src/ (`cli`, `index`). The files at the top of src/forge/ and
 * src/ci/ (the port, what every adapter shares) are the folder `forge` or `ci`.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

export interface FolderGraph {
  /** folder → folders it imports, each with one importing file as evidence. */
  edges: Map<string, Map<string, string>>;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** The folders of src/ whose subfolders are adapters: src/forge/<name>/, src/ci/<name>/. */
export const ADAPTER_KINDS = ['forge', 'ci'];

/** The folder a file under src/ belongs to. */
export function folderOf(srcRelative: string): string {
  const parts = srcRelative.split(sep).join('/').split('/');
  if (parts.length === 1) return parts[0]!.replace(/\.ts$/, '');
  if (ADAPTER_KINDS.includes(parts[0]!) && parts.length >= 3) return `${parts[0]}/${parts[1]}`;
  return parts[0]!;
}

export function folderGraph(srcDir: string): FolderGraph {
  const edges = new Map<string, Map<string, string>>();
  for (const file of sourceFiles(srcDir)) {
    const from = folderOf(relative(srcDir, file));
    const imports = ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles;
    for (const { fileName } of imports) {
      if (!fileName.startsWith('.')) continue;
      const target = resolve(dirname(file), fileName);
      const rel = relative(srcDir, target);
      if (rel.startsWith('..')) continue;
      const to = folderOf(rel.replace(/\.js$/, '.ts'));
      if (to === from) continue;
      const out = edges.get(from) ?? new Map<string, string>();
      if (!out.has(to)) out.set(to, relative(srcDir, file));
      edges.set(from, out);
    }
  }
  return { edges };
}

/** Strongly connected components of more than one folder (Tarjan), each sorted. */
export function folderCycles(graph: FolderGraph): string[][] {
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (node: string): void => {
    indexOf.set(node, index);
    low.set(node, index);
    index++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.edges.get(node)?.keys() ?? []) {
      if (!indexOf.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, indexOf.get(next)!));
      }
    }
    if (low.get(node) === indexOf.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const node of [...graph.edges.keys()].sort()) if (!indexOf.has(node)) visit(node);
  return components;
}

/** The imports inside one cycle, as "from → to (file)". */
export function cycleEdges(graph: FolderGraph, cycle: string[]): string[] {
  const members = new Set(cycle);
  return cycle.flatMap((from) =>
    [...(graph.edges.get(from) ?? new Map<string, string>())]
      .filter(([to]) => members.has(to))
      .map(([to, file]) => `${from} → ${to} (${file})`),
  );
}
