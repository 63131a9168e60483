/**
 * The files of src/ load each other without a loop, and the layers keep to their never-rules. A
 * runtime loop between files makes one of them see the other half-initialised (an import is
 * undefined until the loop unwinds); type-only imports are erased and do not count. See
 * file-graph.ts for what an import is.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { fileGraph, fileGraphOf, type LayerRule, ruleViolations, runtimeCycles } from './file-graph.js';
import { ADAPTER_KINDS, folderOf } from './folder-graph.js';

const src = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

const under =
  (...folders: string[]) =>
  (file: string): boolean =>
    folders.some((folder) => file.startsWith(`${folder}/`));

/** The adapter a file belongs to (`forge/<name>` or `ci/<name>`), or undefined outside the adapters. */
const adapterOf = (file: string): string | undefined => {
  const folder = folderOf(file);
  return folder.includes('/') && ADAPTER_KINDS.some((kind) => folder.startsWith(`${kind}/`)) ? folder : undefined;
};

/** The date libraries the engine computes calendars and cron schedules with. */
const ENGINE_PACKAGES = new Set(['luxon', 'croner']);

/** One rule an entry: whom it applies to, and what they never import (type-only imports included). */
const RULES: LayerRule[] = [
  { name: 'src/api never imports src/store', applies: under('api'), forbids: under('store') },
  {
    name: 'src/engine imports of src/ only src/lib, and of packages only luxon and croner',
    applies: under('engine'),
    forbids: (to) => !under('engine', 'lib')(to) && !ENGINE_PACKAGES.has(to),
  },
  {
    // Migrations are frozen in time: they carry copies of what they need. dialect.ts (which
    // imports only kysely) is what the first migrations were written over.
    name: 'a migration imports only kysely, node built-ins, the migrations folder and store/dialect.ts',
    applies: (from) => /^store\/migrations\/\d+-/.test(from),
    forbids: (to) =>
      to !== 'kysely' && !to.startsWith('node:') && !under('store/migrations')(to) && to !== 'store/dialect.ts',
  },
  { name: 'src/notify never imports src/webhooks', applies: under('notify'), forbids: under('webhooks') },
  { name: 'src/webhooks never imports src/notify', applies: under('webhooks'), forbids: under('notify') },
  {
    name: 'src/delivery (the outbox both share) imports neither src/webhooks nor src/notify',
    applies: under('delivery'),
    forbids: under('webhooks', 'notify'),
  },
  {
    name: 'an adapter never imports another adapter',
    applies: (from) => adapterOf(from) !== undefined,
    forbids: (to, from) => adapterOf(to) !== undefined && adapterOf(to) !== adapterOf(from),
  },
];

const paths = (cycles: string[][]): string[] => cycles.map((cycle) => cycle.join(' → '));

describe('files of src/', () => {
  const graph = fileGraph(src);

  it('load each other without a runtime import cycle', () => {
    expect(paths(runtimeCycles(graph)), 'runtime import cycles, each as a path of files').toEqual([]);
  });

  for (const rule of RULES) {
    it(rule.name, () => {
      expect(ruleViolations(graph, rule), `imports that break "${rule.name}"`).toEqual([]);
    });
  }

  it('are all read: the graph holds the engine, the API and the adapters', () => {
    const importers = new Set(graph.imports.map((i) => i.from));
    for (const file of ['engine/decide.ts', 'api/build-app.ts', 'forge/git/git-forge.ts'])
      expect(importers).toContain(file);
  });
});

describe('the file graph', () => {
  it('finds runtime loops, counting dynamic imports and re-exports, and leaves out type-only ones', () => {
    const graph = fileGraphOf({
      'a.ts': "import { b } from './b.js';",
      'b.ts': "export { c } from './dir/c.js';",
      'dir/c.ts': "const { a } = await import('../a.js');",
      'd.ts': "import type { E } from './e.js';\nimport { type F, type G } from './e.js';",
      'e.ts': "import { d } from './d.js';\nexport type { H } from './d.js';",
      'f.ts': "import './f.js';",
      'g.ts': "import { h } from './h';",
      'h/index.ts': "import * as g from '../g.js';\nlet t: import('../a.js').T;",
    });
    expect(paths(runtimeCycles(graph))).toEqual([
      'f.ts → f.ts',
      'a.ts → b.ts → dir/c.ts → a.ts',
      'g.ts → h/index.ts → g.ts',
    ]);
    expect(graph.imports.filter((i) => !i.runtime).map((i) => `${i.from}:${i.line} → ${i.to}`)).toEqual([
      'd.ts:1 → e.ts',
      'd.ts:2 → e.ts',
      'e.ts:2 → d.ts',
      'h/index.ts:2 → a.ts',
    ]);
  });

  it('lists a loop through each file of a tangle', () => {
    const graph = fileGraphOf({
      'hub.ts': "import './x.js';\nimport './y.js';",
      'x.ts': "import './hub.js';",
      'y.ts': "import './hub.js';",
    });
    expect(paths(runtimeCycles(graph))).toEqual(['hub.ts → x.ts → hub.ts', 'y.ts → hub.ts → y.ts']);
  });

  it('names each import that breaks a rule, type-only ones included', () => {
    const graph = fileGraphOf({
      'api/v2/routes/x.ts': "import type { Row } from '../../../store/rows.js';\nimport { ok } from '../../wire.js';",
      'api/wire.ts': '',
      'store/rows.ts': '',
      'engine/decide.ts':
        "import { DateTime } from 'luxon';\nimport { readFile } from 'node:fs';\nimport { Cron } from 'croner';\nimport { clock } from '../lib/clock.js';\nimport { db } from '../store/rows.js';",
      'lib/clock.ts': '',
      'ci/command/run.ts':
        "import { mirror } from '../../forge/git/mirror.js';\nimport { x } from './x.js';\nimport { P } from '../port.js';",
      'ci/command/x.ts': '',
      'ci/port.ts': '',
      'ci/scripted/ci.ts': "import { run } from '../command/run.js';",
      'forge/git/mirror.ts': "import { e } from '../../engine/decide.js';",
      'store/dialect.ts': '',
      'store/migrations/index.ts': "import { rows } from '../rows.js';",
      'store/migrations/009-x.ts':
        "import { sql } from 'kysely';\nimport { y } from './y.js';\nimport { withAutoId } from '../dialect.js';",
      'store/migrations/y.ts': '',
      'store/migrations/011-z.ts':
        "import { createHash } from 'node:crypto';\nimport { rows } from '../rows.js';\nimport { v } from 'uuid';",
      'notify/fan-out.ts':
        "import { sign } from '../delivery/signing.js';\nimport { hook } from '../webhooks/admin.js';",
      'webhooks/admin.ts': "import { channel } from '../notify/fan-out.js';",
      'delivery/signing.ts': "import type { Hook } from '../webhooks/admin.js';",
    });
    expect(Object.fromEntries(RULES.map((rule) => [rule.name, ruleViolations(graph, rule)]))).toEqual({
      [RULES[0]!.name]: ["api/v2/routes/x.ts:1 imports store/rows.ts ('../../../store/rows.js')"],
      [RULES[1]!.name]: [
        "engine/decide.ts:2 imports node:fs ('node:fs')",
        "engine/decide.ts:5 imports store/rows.ts ('../store/rows.js')",
      ],
      [RULES[2]!.name]: [
        "store/migrations/011-z.ts:2 imports store/rows.ts ('../rows.js')",
        "store/migrations/011-z.ts:3 imports uuid ('uuid')",
      ],
      [RULES[3]!.name]: ["notify/fan-out.ts:2 imports webhooks/admin.ts ('../webhooks/admin.js')"],
      [RULES[4]!.name]: ["webhooks/admin.ts:1 imports notify/fan-out.ts ('../notify/fan-out.js')"],
      [RULES[5]!.name]: ["delivery/signing.ts:1 imports webhooks/admin.ts ('../webhooks/admin.js')"],
      [RULES[6]!.name]: [
        "ci/command/run.ts:1 imports forge/git/mirror.ts ('../../forge/git/mirror.js')",
        "ci/scripted/ci.ts:1 imports ci/command/run.ts ('../command/run.js')",
      ],
    });
  });
});
