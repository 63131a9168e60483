/**
 * The App manifest flow of the fake of GitHub, as GitHub documents it ("Registering a GitHub App from
 * a manifest"): its web page registers an App from the `manifest` form field posted by a signed-in
 * browser and sends that browser to the manifest's `redirect_url` with a `code` and the `state` it was
 * given; `POST /app-manifests/{code}/conversions` (apps/create-from-manifest) exchanges the code once,
 * within an hour of its making, for the App's id, private key and webhook secret, and answers 404 for a
 * code it does not know, has taken or that expired. The App made can then authenticate with the fake.
 * The web page is GitHub's site, not its REST API, so it has no description to be checked against:
 * it checks what GitHub's form does (a manifest with a `url`, a redirect URL, known permissions).
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';

const HOUR_MS = 3600_000;

/** The permissions an App may ask for (of GitHub's `app-permissions` schema, the repository ones greenline could ask for). */
const KNOWN_PERMISSIONS = new Set([
  'actions',
  'checks',
  'contents',
  'issues',
  'metadata',
  'pull_requests',
  'statuses',
  'administration',
  'workflows',
]);

export interface RegisteredApp {
  id: number;
  slug: string;
  owner: string;
  manifest: Record<string, unknown>;
  pem: string;
  publicKey: string;
  webhookSecret: string;
}

interface Code {
  app: RegisteredApp;
  madeAt: number;
  taken: boolean;
}

export class FakeAppRegistrations {
  readonly apps: RegisteredApp[] = [];
  private readonly codes = new Map<string, Code>();
  private nextId = 900;

  constructor(
    /** The web address of the GitHub the fake is (its API is the fake's baseUrl). */
    readonly webUrl: string,
    private readonly now: () => number,
    /** Told of each App a code was exchanged for, so that it can authenticate. */
    private readonly onConverted: (app: RegisteredApp) => void,
  ) {}

  /**
   * What GitHub's registration page does with a form posted to `action` (`…/settings/apps/new?state=`,
   * of an organization or of the signed-in user) by a browser signed in as `login`: the address it
   * sends the browser to, with the code.
   */
  submit(action: string, form: URLSearchParams, login = 'ada'): string {
    const url = new URL(action);
    if (url.origin !== this.webUrl)
      throw new Error(`the form goes to ${url.origin}, not to this GitHub (${this.webUrl})`);
    const org = /^\/organizations\/([^/]+)\/settings\/apps\/new$/.exec(url.pathname)?.[1];
    if (org === undefined && url.pathname !== '/settings/apps/new')
      throw new Error(`GitHub has no App registration page at ${url.pathname}`);
    const manifest = JSON.parse(form.get('manifest') ?? 'null') as Record<string, unknown> | null;
    if (manifest === null || typeof manifest.url !== 'string') throw new Error('a manifest needs its url');
    if (typeof manifest.redirect_url !== 'string') throw new Error('a manifest without redirect_url sends nobody back');
    const unknown = Object.keys((manifest.default_permissions as object | undefined) ?? {}).filter(
      (p) => !KNOWN_PERMISSIONS.has(p),
    );
    if (unknown.length > 0) throw new Error(`GitHub knows no permission ${unknown.join(', ')}`);
    const { privateKey, publicKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const name = String(manifest.name ?? 'app');
    const app: RegisteredApp = {
      id: this.nextId++,
      slug: name.toLowerCase().replace(/[^a-z0-9]+/g, '-'),
      owner: org === undefined ? login : decodeURIComponent(org),
      manifest,
      pem: privateKey,
      publicKey,
      webhookSecret: randomBytes(20).toString('hex'),
    };
    this.apps.push(app);
    const code = randomBytes(10).toString('hex');
    this.codes.set(code, { app, madeAt: this.now(), taken: false });
    const back = new URL(manifest.redirect_url);
    back.searchParams.set('code', code);
    const state = url.searchParams.get('state');
    if (state !== null) back.searchParams.set('state', state);
    return back.href;
  }

  /** apps/create-from-manifest: the App for a code not taken yet and less than an hour old; else null (404). */
  convert(code: string): Record<string, unknown> | null {
    const made = this.codes.get(code);
    if (!made || made.taken || this.now() - made.madeAt > HOUR_MS) return null;
    made.taken = true;
    const { app } = made;
    this.onConverted(app);
    return {
      id: app.id,
      slug: app.slug,
      name: app.manifest.name,
      owner: { login: app.owner, id: 1, type: app.owner === 'ada' ? 'User' : 'Organization' },
      html_url: `${this.webUrl}/apps/${app.slug}`,
      external_url: app.manifest.url,
      permissions: app.manifest.default_permissions,
      events: app.manifest.default_events,
      pem: app.pem,
      webhook_secret: app.webhookSecret,
    };
  }
}
