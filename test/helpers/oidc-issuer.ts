/**
 * A local OpenID Connect issuer standing in for GitHub Actions': an RSA key pair made by jose, its
 * public key served as a JSON Web Key Set (RFC 7517) by a real HTTP server on 127.0.0.1 at
 * `<issuer>/.well-known/jwks` (where GitHub's openid-configuration points), and ID tokens signed like
 * GitHub's: header `{ alg: RS256, typ: JWT, kid }`, the claims of GitHub's documented example token
 * (docs.github.com, "About security hardening with OpenID Connect"), valid five minutes from `now`.
 *
 *   const issuer = await startOidcIssuer();
 *   const jwt = await issuer.sign({ repository: 'acme/web', now: clock.now() });
 *   …
 *   await issuer.close();
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type CryptoKey, type JWTPayload, SignJWT } from 'jose';

/** Which key signs a token: the one the key set lists, one it does not, or another under the listed key's id. */
export type SigningKey = 'listed' | 'unlisted' | 'impostor';

export interface SignOptions {
  /** `owner/name` (claim `repository`). */
  repository: string;
  /** Issue time in ms (the test's clock). */
  now: number;
  audience?: string;
  issuer?: string;
  key?: SigningKey;
  /** Claims added or replaced. */
  claims?: JWTPayload;
}

export interface LocalIssuer {
  /** `http://127.0.0.1:<port>`: the `iss` of its tokens. */
  issuer: string;
  jwksUrl: string;
  /** How many times the key set was requested. */
  readonly jwksRequests: number;
  sign(opts: SignOptions): Promise<string>;
  close(): Promise<void>;
}

const LISTED_KID = 'greenline-test-key-1';
const UNLISTED_KID = 'greenline-test-key-2';
/** GitHub's ID tokens: valid from ten minutes before issue (nbf) to five minutes after (exp). */
const NBF_BEFORE_S = 600;
const EXP_AFTER_S = 300;

export async function startOidcIssuer(): Promise<LocalIssuer> {
  const listed = await generateKeyPair('RS256', { extractable: true });
  const unlisted = await generateKeyPair('RS256');
  const impostor = await generateKeyPair('RS256');
  const publicJwk = { ...(await exportJWK(listed.publicKey)), kid: LISTED_KID, alg: 'RS256', use: 'sig' };
  const jwks = JSON.stringify({ keys: [publicJwk] });
  let jwksRequests = 0;
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/.well-known/jwks') {
      jwksRequests++;
      res.writeHead(200, { 'content-type': 'application/json' }).end(jwks);
    } else res.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const keys: Record<SigningKey, { kid: string; key: CryptoKey }> = {
    listed: { kid: LISTED_KID, key: listed.privateKey },
    unlisted: { kid: UNLISTED_KID, key: unlisted.privateKey },
    impostor: { kid: LISTED_KID, key: impostor.privateKey },
  };
  return {
    issuer,
    jwksUrl: `${issuer}/.well-known/jwks`,
    get jwksRequests() {
      return jwksRequests;
    },
    async sign({ repository, now, audience = 'greenline', key = 'listed', claims = {}, ...rest }) {
      const { kid, key: privateKey } = keys[key];
      const iat = Math.floor(now / 1000);
      const [owner] = repository.split('/');
      return new SignJWT({
        sub: `repo:${repository}:ref:refs/heads/main`,
        ref: 'refs/heads/main',
        sha: 'a'.repeat(40),
        repository,
        repository_owner: owner,
        run_id: '7001',
        run_number: '12',
        run_attempt: '1',
        actor: 'octocat',
        workflow: 'CI',
        event_name: 'pull_request',
        jti: randomUUID(),
        ...claims,
      })
        .setProtectedHeader({ alg: 'RS256', typ: 'JWT', kid })
        .setIssuer(rest.issuer ?? issuer)
        .setAudience(audience)
        .setIssuedAt(iat)
        .setNotBefore(iat - NBF_BEFORE_S)
        .setExpirationTime(iat + EXP_AFTER_S)
        .sign(privateKey);
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
