/**
 * The folders of src/ import each other in one direction only, and adapters import only what they
 * are built on (what two adapters share lives outside both, e.g. src/git/; that no adapter imports
 * another is a rule of file-layers.test.ts). See folder-graph.ts for what a folder is.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ADAPTER_KINDS, cycleEdges, folderCycles, folderGraph } from './folder-graph.js';

const src = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

describe('folders of src/', () => {
  const graph = folderGraph(src);

  it('import each other without a cycle', () => {
    expect(folderCycles(graph).map((cycle) => cycleEdges(graph, cycle))).toEqual([]);
  });

  it('have adapters built from options: an adapter imports only the port, the engine types and shared plumbing', () => {
    // forge holds the forge port, what a forge reports and the words every forge shows of a queue on
    // its PRs; ci the CI port.
    const allowed = new Set(['forge', 'ci', 'engine', 'lib', 'git']);
    const isAdapter = (folder: string) => ADAPTER_KINDS.some((kind) => folder.startsWith(`${kind}/`));
    const outside = [...graph.edges].flatMap(([from, out]) =>
      isAdapter(from)
        ? [...out].filter(([to]) => !allowed.has(to) && !isAdapter(to)).map(([to, file]) => `${from} → ${to} (${file})`)
        : [],
    );
    expect(outside).toEqual([]);
  });

  it('have the role folders of app/ (executor/, cluster/, forge/ …) import each other without a cycle', () => {
    const app = folderGraph(join(src, 'app'));
    expect(folderCycles(app).map((cycle) => cycleEdges(app, cycle))).toEqual([]);
  });

  it('have lib/ import nothing else of src/', () => {
    expect([...(graph.edges.get('lib')?.keys() ?? [])]).toEqual([]);
  });
});

describe('the folder graph', () => {
  async function tree(files: Record<string, string>): Promise<string> {
    const root = await mkdtemp(join(tmpdir(), 'gl-folders-'));
    for (const [path, text] of Object.entries(files)) {
      await mkdir(dirname(join(root, path)), { recursive: true });
      await writeFile(join(root, path), text);
    }
    return root;
  }

  it("finds a cycle through several folders, and an adapter's imports", async () => {
    const root = await tree({
      'app/a.ts': "import { b } from '../webhooks/b.js';\nimport type { P } from '../forge/port.js';",
      'webhooks/b.ts': "export { c } from '../lib/c.js';",
      'lib/c.ts': "import { a } from '../app/a.js';",
      'forge/port.ts': 'export type P = 1;',
      'ci/command/run.ts': "import { m } from '../../forge/git/mirror.js';",
      'forge/git/mirror.ts': "const x = await import('../../engine/e.js');",
      'engine/e.ts': '',
    });
    try {
      const graph = folderGraph(root);
      expect(folderCycles(graph)).toEqual([['app', 'lib', 'webhooks']]);
      expect(graph.edges.get('ci/command')?.get('forge/git')).toBe(join('ci', 'command', 'run.ts'));
      expect(graph.edges.get('forge/git')?.has('engine')).toBe(true);
      expect(graph.edges.get('app')?.has('forge')).toBe(true);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
