/**
 * Writes docs/configuration.md from the server's config schema (src/config/schema.ts): one row per
 * setting with its key, environment variable, flag, default, accepted values and meaning.
 * `npm run docs:config` runs it; test/docs/configuration.test.ts fails when the committed page differs
 * from what `configurationDoc()` writes, so the page cannot drift from the schema.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { KindGuard, type TSchema } from '@sinclair/typebox';
import { FORGES } from '../src/forges.js';
import { CONFIG_KEYS, SETTINGS_BLOCKS, settingOf, type ConfigKey, type Setting } from '../src/config/schema.js';

export const CONFIGURATION_DOC = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));

const code = (s: string): string => `\`${s}\``;

/** A setting's name in its forge's mapping of greenline.yaml (`githubAppId` → `github.appId`), if it has one. */
const blockName = (key: ConfigKey): string | undefined =>
  [...SETTINGS_BLOCKS].flatMap(([name, block]) =>
    [...block.keys].filter(([, k]) => k === key).map(([short]) => `${name}.${short}`),
  )[0];

/** What a value must be, read from the schema: bounds, choices, lists, patterns. */
function valuesOf(schema: TSchema, mustBe: string | undefined): string {
  if (KindGuard.IsUnion(schema)) {
    const options = schema.anyOf.filter((s) => !KindGuard.IsNull(s));
    if (options.every(KindGuard.IsLiteral)) return options.map((s) => code(String(s.const))).join(', ');
    return options.map((s) => valuesOf(s, mustBe)).join(' or ');
  }
  if (KindGuard.IsInteger(schema)) {
    const { minimum, maximum } = schema;
    if (maximum === Number.MAX_SAFE_INTEGER) return `integer ≥ ${minimum}`;
    return `integer ${minimum}–${maximum}`;
  }
  if (KindGuard.IsArray(schema)) return `list; each item must ${mustBe ?? 'be text'}`;
  if (KindGuard.IsString(schema)) return mustBe ? `must ${mustBe}` : 'text';
  throw new Error(`configuration-doc: no wording for a ${String(schema.type)} setting`);
}

/** The default as the table states it. */
const defaultOf = (s: Setting): string => s.defaultText ?? code(String(s.default));

/** `|` inside a table cell would end it. */
const cell = (text: string): string => text.replaceAll('|', '\\|');

function row(key: ConfigKey): string {
  const s = settingOf(key);
  const block = blockName(key);
  return `| ${[
    code(key) + (block ? ` (${code(block)})` : ''),
    code(s.env),
    s.flag ? code(s.flag.split(' ')[0]!) : '—',
    defaultOf(s),
    valuesOf(s, s.mustBe),
    s.description,
  ]
    .map(cell)
    .join(' | ')} |`;
}

/**
 * What a setting's row has no room for, by setting (a renamed setting fails to compile here); a
 * forge's settings say it themselves (`more`).
 */
const MORE: Partial<Record<ConfigKey, string>> = {
  databaseUrl: 'takes `postgres://user@host:5432/db` for PostgreSQL or `sqlite:<path>`.',
  enumCase:
    "spells states UPPERCASE on the wire with `upper` (`TESTING`, `RUNNING`), and in Trunk's current lowercase " +
    "with `lower`. Requests from Terraform or OpenTofu are always answered in the lowercase spelling, which Trunk's " +
    'Terraform provider requires ([api.md](api.md#conventions)).',
  leaseTtlSeconds:
    'is how long a queue goes undriven when the instance driving it dies ([instances.md](instances.md)).',
  retentionDays:
    'is how long finished work records are kept before the hourly sweep deletes them: effects done or failed, ' +
    'webhook deliveries made or given up, queue events, audit log entries ([audit-log.md](audit-log.md)). PR history, runs and transitions are kept.',
  v2RateLimit:
    'and `v2MetricsRateLimit` are the requests per second each organization may send to the v2 API and to its ' +
    'metrics endpoints; more are answered `429 RATE_LIMIT_EXCEEDED` ([api-v2.md](api-v2.md)).',
  operatorMetricsPort:
    'turns on `GET /metrics` (process, event-loop and HTTP latency metrics, no token) on `operatorMetricsHost`; ' +
    'the queue metrics are at `GET /v1/getMergeQueueMetrics`. Both: [metrics.md](metrics.md).',
  publicUrl:
    "(e.g. `https://greenline.example.com`) is where people reach the server: chat notifications link to the PR's " +
    'page in the dashboard under it ([notifications.md](notifications.md)).',
  webhookAllowedHosts:
    'limits where webhooks (and chat notifications) may be sent (`hooks.example.com`, `*.example.com`, ' +
    'addresses); link-local and cloud metadata addresses are always refused ([webhooks.md](webhooks.md)).',
};

const moreOf = (key: ConfigKey): string | undefined => MORE[key] ?? settingOf(key).more;

/** The layer beneath greenline.yaml: the settings files the forges keep in the data directory. */
function storedSettings(): string {
  const files = FORGES.flatMap((f) =>
    f.storedSettingsFile && f.settingsBlock
      ? [`\`<dataDir>/${f.storedSettingsFile}\` (a \`${f.settingsBlock.key}:\` mapping)`]
      : [],
  );
  return files.length === 0
    ? ''
    : `
Beneath \`greenline.yaml\` lie the settings greenline keeps in the data directory itself:
${files.join(', ')}, written by \`greenline github app create\` ([github.md](github.md#in-one-step)); their paths are relative
to the data directory, and a setting given in any other layer wins over them.
`;
}

/** The page, as `npm run docs:config` writes it. */
export function configurationDoc(): string {
  return `# Configuration

<!-- Generated from src/config/schema.ts by \`npm run docs:config\` (scripts/configuration-doc.ts): edit those, not this page. -->

The settings of \`greenline serve\`. The admin commands (\`token\`, \`repo\`, \`webhook\`, \`notify\`) take the
same \`--data-dir\`, \`--database-url\` and \`--config\`, and act on the database those name.

Layers, later wins: defaults ← \`greenline.yaml\` (current directory, or \`--config FILE\`) ←
\`GREENLINE_*\` environment ← command-line flags. Unknown keys are errors. Relative paths (\`dataDir\`, a
\`sqlite:\` \`databaseUrl\`, \`githubPrivateKeyPath\`, \`--config\`) are resolved once, against the directory
the command runs in. The github keys may also be written as a \`github:\` mapping in \`greenline.yaml\`
(\`github.baseUrl: …\`); it belongs to the file's layer, so an environment variable or flag wins over it,
even one set to the default.
${storedSettings()}
| Key (\`greenline.yaml\`) | Environment | Flag | Default | Values | Meaning |
|---|---|---|---|---|---|
${CONFIG_KEYS.map(row).join('\n')}

## More about some settings

${CONFIG_KEYS.filter((key) => moreOf(key))
  .map((key) => `- ${code(key)} ${moreOf(key)}`)
  .join('\n')}
`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(CONFIGURATION_DOC, configurationDoc());
  console.log(`wrote ${CONFIGURATION_DOC}`);
}
