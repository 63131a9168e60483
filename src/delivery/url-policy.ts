/**
 * Which URLs webhooks and chat notifications may be sent to. Always refused: schemes other than
 * http(s), link-local addresses (169.254.0.0/16, fe80::/10) and cloud metadata endpoints
 * (169.254.169.254, metadata.google.internal, fd00:ec2::254). With an allow-list
 * (`webhookAllowedHosts`, env GREENLINE_WEBHOOK_ALLOWED_HOSTS) only the hosts on it: exact names or
 * addresses, or `*.example.com` for every subdomain. Checked when a subscription or a channel is made
 * (on the URL) and again at every attempt: the URL, then every address the host resolves to, as the
 * connection resolves it (connectLookup).
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP, type LookupFunction } from 'node:net';

const BLOCKED_NAMES = new Set(['metadata.google.internal', 'metadata.goog']);

const blocked = new BlockList();
blocked.addSubnet('169.254.0.0', 16, 'ipv4');
blocked.addSubnet('fe80::', 10, 'ipv6');
blocked.addAddress('fd00:ec2::254', 'ipv6');

/** Resolves a host name to its addresses (injected in tests; default: the system resolver). */
export type Lookup = (host: string) => Promise<string[]>;

export const systemLookup: Lookup = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address);

export class WebhookUrlError extends Error {
  override name = 'WebhookUrlError';
}

/** Why an address may not be sent to, or null. */
export function blockedAddressReason(address: string): string | null {
  const family = isIP(address);
  if (family === 0) return null;
  if (blocked.check(address, family === 4 ? 'ipv4' : 'ipv6')) {
    return `${address} is a link-local or cloud metadata address`;
  }
  return null;
}

const bare = (hostname: string): string =>
  hostname
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();

export class UrlPolicy {
  private readonly allowed: readonly string[] | null;

  /** `allowedHosts`: null or empty = any host that is not blocked. */
  constructor(
    allowedHosts: readonly string[] | null = null,
    private readonly lookup: Lookup = systemLookup,
  ) {
    this.allowed = allowedHosts && allowedHosts.length > 0 ? allowedHosts.map((h) => bare(h)) : null;
  }

  /** Parses and checks a subscription URL without resolving it; throws WebhookUrlError saying why. */
  check(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new WebhookUrlError(`${JSON.stringify(raw)} is not a valid URL; give an absolute http:// or https:// URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new WebhookUrlError(`webhook URLs must use http or https, not ${url.protocol.slice(0, -1)}`);
    }
    const host = bare(url.hostname);
    if (BLOCKED_NAMES.has(host))
      throw new WebhookUrlError(`${host} is a cloud metadata endpoint; webhooks may not be sent there`);
    const reason = blockedAddressReason(host);
    if (reason) throw new WebhookUrlError(`${reason}; webhooks may not be sent there`);
    if (this.allowed && !this.allowed.some((a) => a === host || (a.startsWith('*.') && host.endsWith(a.slice(1))))) {
      throw new WebhookUrlError(
        `${host} is not on the webhook allow-list (webhookAllowedHosts: ${this.allowed.join(', ')})`,
      );
    }
    return url;
  }

  /**
   * Resolves a host for a connection and refuses it when any address it resolves to is blocked: the
   * connection is made to one of the addresses checked here (http-post.ts), never resolved again.
   */
  readonly connectLookup: LookupFunction = (hostname, options, callback) => {
    this.resolveChecked(bare(hostname)).then(
      (addresses) => {
        const wanted =
          options.family === 4 || options.family === 6
            ? addresses.filter((a) => isIP(a) === options.family)
            : addresses;
        if (wanted.length === 0) {
          callback(
            Object.assign(new WebhookUrlError(`${hostname} has no IPv${options.family} address`), {
              code: 'ENOTFOUND',
            }),
            '',
            0,
          );
        } else if (options.all) {
          callback(
            null,
            wanted.map((address) => ({ address, family: isIP(address) })),
          );
        } else {
          callback(null, wanted[0], isIP(wanted[0]));
        }
      },
      (err: Error) => callback(err, '', 0),
    );
  };

  /** Every address of a host name, when none is blocked; throws WebhookUrlError saying why not. */
  async resolveChecked(host: string): Promise<string[]> {
    let addresses: string[];
    try {
      addresses = await this.lookup(host);
    } catch (err) {
      throw new WebhookUrlError(`cannot resolve ${host}: ${err instanceof Error ? err.message : String(err)}`);
    }
    for (const address of addresses) {
      if (blockedAddressReason(address))
        throw new WebhookUrlError(`${host} resolves to ${address}, a link-local or cloud metadata address; not sent`);
    }
    return addresses;
  }
}
