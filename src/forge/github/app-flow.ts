/**
 * The browser's part of the App manifest flow, served on this machine while `greenline github app
 * create` waits: `/` is a page whose button sends the manifest to GitHub's registration page (GitHub
 * takes a manifest only in a form posted by the browser of someone signed in); GitHub sends that
 * browser back to `/callback` with a code and the state it was given, and the code is exchanged for
 * the App. An answer with another state is refused (it was not asked for here) and the flow waits on.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AppManifestError,
  appManifest,
  type CreatedApp,
  convertCode,
  type GitHubSite,
  installUrl,
  newAppPage,
} from './app-manifest.js';

export interface AppFlowOptions {
  site: GitHubSite;
  /** The organization that owns the App; null = the signed-in user. */
  org: string | null;
  name: string;
  /** greenline's address as GitHub reaches it. */
  url: string;
  /** The local port the browser comes back to (0: any free one). */
  port: number;
  /** Told the address to open in a browser once it is served. */
  onReady(pageUrl: string): void;
  fetch?: typeof fetch;
  requestTimeoutMs: number;
  /** Given up: the flow ends with an AppManifestError. */
  signal?: AbortSignal;
}

const htmlText = (s: string): string =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const page = (title: string, body: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${htmlText(title)}</title></head><body><h1>${htmlText(title)}</h1>${body}</body></html>`;

function send(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'; form-action https: http:",
  });
  res.end(html);
}

/** Runs the flow until GitHub's code is exchanged for the App (or fails, saying why). */
export async function runAppFlow(opts: AppFlowOptions): Promise<CreatedApp> {
  const state = randomBytes(16).toString('hex');
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) =>
      reject(
        new AppManifestError(
          `Cannot serve the flow's page on 127.0.0.1:${opts.port}: ${err.message}; pass another --port`,
        ),
      ),
    );
    server.listen(opts.port, '127.0.0.1', resolve);
  });
  const local = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const manifest = JSON.stringify(appManifest({ name: opts.name, url: opts.url, redirectUrl: `${local}/callback` }));
  const registerAt = newAppPage(opts.site, opts.org, state);
  try {
    return await new Promise<CreatedApp>((resolve, reject) => {
      const giveUp = () =>
        reject(new AppManifestError('Stopped before GitHub sent the browser back: no App was kept.'));
      if (opts.signal?.aborted) return giveUp();
      opts.signal?.addEventListener('abort', giveUp, { once: true });
      server.on('request', (req: IncomingMessage, res: ServerResponse) => {
        const url = new URL(req.url ?? '/', local);
        if (req.method === 'GET' && url.pathname === '/') {
          const where = opts.org === null ? 'your account' : `the organization ${opts.org}`;
          return send(
            res,
            200,
            page(
              `Register ${opts.name} on GitHub`,
              `<p>GitHub registers the App for ${htmlText(where)} with the permissions and events greenline needs, its webhook at ${htmlText(opts.url)}.</p>` +
                `<form method="post" action="${htmlText(registerAt)}"><input type="hidden" name="manifest" value="${htmlText(manifest)}"><button type="submit">Register on ${htmlText(opts.site.web)}</button></form>`,
            ),
          );
        }
        if (req.method === 'GET' && url.pathname === '/callback') {
          const code = url.searchParams.get('code');
          if (url.searchParams.get('state') !== state || code === null || code === '')
            return send(
              res,
              400,
              page(
                'Not this registration',
                `<p>This answer does not carry the code and state of the registration started here. Start again from <a href="${local}/">${local}/</a>.</p>`,
              ),
            );
          convertCode(opts.site, code, opts).then(
            (app) => {
              send(
                res,
                200,
                page(
                  `${app.slug} is registered`,
                  `<p>Install it on the repositories the queue should manage: <a href="${htmlText(installUrl(app))}">${htmlText(installUrl(app))}</a>. The command line says where the App was kept.</p>`,
                ),
              );
              resolve(app);
            },
            (err: unknown) => {
              send(res, 502, page('The App was not handed over', `<p>${htmlText((err as Error).message)}</p>`));
              reject(err);
            },
          );
          return;
        }
        send(res, 404, page('Not found', `<p>Start from <a href="${local}/">${local}/</a>.</p>`));
      });
      opts.onReady(`${local}/`);
    });
  } finally {
    const closed = new Promise((resolve) => server.close(resolve));
    server.closeIdleConnections();
    await closed;
  }
}
