/** The webhook URL policy: refused schemes and addresses, the allow-list, and the check of resolved addresses. */
import { describe, expect, it } from 'vitest';
import { UrlPolicy, WebhookUrlError } from '../../src/delivery/url-policy.js';
import { loadConfig } from '../../src/config/config.js';

const refused = (policy: UrlPolicy, url: string): string => {
  try {
    policy.check(url);
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookUrlError);
    return (err as Error).message;
  }
  throw new Error(`${url} was accepted`);
};

describe('UrlPolicy', () => {
  it('allows any http(s) host by default, loopback and private addresses included', () => {
    const p = new UrlPolicy();
    for (const url of [
      'http://127.0.0.1:8080/x',
      'https://hooks.example.com/',
      'http://10.0.0.5/',
      'http://[::1]:9/',
    ]) {
      expect(p.check(url).href).toBe(new URL(url).href);
    }
  });

  it('refuses link-local and metadata addresses in every spelling', () => {
    const p = new UrlPolicy();
    expect(refused(p, 'http://169.254.169.254/')).toMatch(/link-local or cloud metadata/);
    expect(refused(p, 'http://0xa9.0xfe.0xa9.0xfe/')).toMatch(/169\.254\.169\.254/);
    expect(refused(p, 'http://[FE80::abcd]/')).toMatch(/fe80::abcd/);
    expect(refused(p, 'https://metadata.google.internal/')).toMatch(/cloud metadata endpoint/);
    expect(refused(p, 'file:///etc/passwd')).toMatch(/http or https, not file/);
  });

  it('with an allow-list, accepts only its hosts (exact or *.suffix)', () => {
    const p = new UrlPolicy(['hooks.example.com', '*.corp.example', '127.0.0.1']);
    expect(p.check('https://hooks.example.com/a').hostname).toBe('hooks.example.com');
    expect(p.check('https://ci.corp.example/a').hostname).toBe('ci.corp.example');
    expect(p.check('http://127.0.0.1:1/').hostname).toBe('127.0.0.1');
    expect(refused(p, 'https://example.com/')).toMatch(/not on the webhook allow-list/);
    expect(refused(p, 'https://evilcorp.example/')).toMatch(/not on the webhook allow-list/);
    // The allow-list never opens the metadata addresses.
    expect(refused(new UrlPolicy(['169.254.169.254']), 'http://169.254.169.254/')).toMatch(/link-local/);
  });

  it('checks every address a name resolves to before sending', async () => {
    const p = new UrlPolicy(null, async (host) =>
      host === 'sneaky.example' ? ['93.184.216.34', '169.254.169.254'] : ['93.184.216.34'],
    );
    await expect(p.resolveChecked('fine.example')).resolves.toEqual(['93.184.216.34']);
    await expect(p.resolveChecked('sneaky.example')).rejects.toThrow(/sneaky\.example resolves to 169\.254\.169\.254/);
    const broken = new UrlPolicy(null, async () => {
      throw new Error('ENOTFOUND');
    });
    await expect(broken.resolveChecked('nowhere.example')).rejects.toThrow(
      /cannot resolve nowhere\.example: ENOTFOUND/,
    );
  });

  it('resolves for the connection as net.connect asks (one address, or all of a family), with the same check', async () => {
    const p = new UrlPolicy(null, async (host) =>
      host === 'sneaky.example' ? ['169.254.169.254'] : ['93.184.216.34', '2001:db8::1'],
    );
    const ask = (host: string, options: object) =>
      new Promise((resolve) => {
        p.connectLookup(host, options, (err, address, family) => resolve(err ? err.message : { address, family }));
      });
    expect(await ask('fine.example', {})).toEqual({ address: '93.184.216.34', family: 4 });
    expect(await ask('fine.example', { family: 6 })).toEqual({ address: '2001:db8::1', family: 6 });
    expect(await ask('fine.example', { all: true })).toEqual({
      address: [
        { address: '93.184.216.34', family: 4 },
        { address: '2001:db8::1', family: 6 },
      ],
      family: undefined,
    });
    expect(await ask('sneaky.example', { all: true })).toMatch(/sneaky\.example resolves to 169\.254\.169\.254/);
  });
});

describe('webhookAllowedHosts configuration', () => {
  it('reads GREENLINE_WEBHOOK_ALLOWED_HOSTS as a comma-separated list; absent = null', () => {
    expect(loadConfig({ env: {}, cwd: '/nonexistent' }).webhookAllowedHosts).toBeNull();
    expect(
      loadConfig({ env: { GREENLINE_WEBHOOK_ALLOWED_HOSTS: 'a.example, *.b.example' }, cwd: '/nonexistent' })
        .webhookAllowedHosts,
    ).toEqual(['a.example', '*.b.example']);
    expect(() => loadConfig({ env: { GREENLINE_WEBHOOK_ALLOWED_HOSTS: 'a b' }, cwd: '/nonexistent' })).toThrow(
      /webhookAllowedHosts: "a b"/,
    );
  });
});
