/**
 * OpenID Connect ID tokens of a CI provider (GitHub Actions by default: ci-claims.ts), checked with `jose`: the
 * issuer, the audience, the signature against a key of the issuer's JSON Web Key Set (fetched once and
 * cached by createRemoteJWKSet: kept ten minutes, fetched again at most every 30 seconds when a token
 * names a key it does not hold), and the validity period (`exp`, `nbf`) with CLOCK_TOLERANCE_S of
 * leeway. Each refusal says in words which check failed and what to do.
 */
import {
  createRemoteJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  errors,
  type JWTPayload,
  type JWTVerifyGetKey,
  jwtVerify,
} from 'jose';
import { ServiceError } from '../../lib/errors.js';
import type { Clock } from '../../lib/clock.js';

/** What a server accepts as CI identity (config `oidcIssuer`, `oidcAudience`, `oidcJwksUrl`). */
export interface OidcSettings {
  issuer: string;
  audience: string;
  jwksUrl: string;
}

/** Seconds a token's `exp` and `nbf` may be off, for clocks that differ a little. */
export const CLOCK_TOLERANCE_S = 30;

/** The algorithms of public keys; a JWKS holds no shared secret, so HMAC is never acceptable. */
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

/**
 * The settings of the configuration's `oidcIssuer`, `oidcAudience` and `oidcJwksUrl`, or null when
 * `oidcIssuer` is empty (no CI identity accepted). The key set is the issuer's `/.well-known/jwks`
 * unless `oidcJwksUrl` says otherwise.
 */
export function oidcSettingsOf(config: {
  oidcIssuer: string;
  oidcAudience: string;
  oidcJwksUrl: string | null;
}): OidcSettings | null {
  if (config.oidcIssuer === '') return null;
  return {
    issuer: config.oidcIssuer,
    audience: config.oidcAudience,
    jwksUrl: config.oidcJwksUrl ?? `${config.oidcIssuer.replace(/\/+$/, '')}/.well-known/jwks`,
  };
}

const refused = (detail: string) => new ServiceError('OIDC_TOKEN_REFUSED', detail);

/** The key set could not be read: not the caller's fault, said apart from the refusals. */
class KeysUnavailable extends Error {}

const at = (seconds: unknown) =>
  typeof seconds === 'number' ? new Date(seconds * 1000).toISOString().replace('.000Z', 'Z') : 'an unknown time';

export class OidcVerifier {
  private readonly keys: JWTVerifyGetKey;

  constructor(
    readonly settings: OidcSettings,
    private readonly clock: Clock,
  ) {
    const remote = createRemoteJWKSet(new URL(settings.jwksUrl));
    // jose answers "no such key" itself; anything else thrown while reading the key set (the
    // network, an answer that is not a key set) is the key set's unavailability.
    this.keys = async (header, token) => {
      try {
        return await remote(header, token);
      } catch (err) {
        if (err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys) throw err;
        throw new KeysUnavailable(err instanceof Error ? err.message : String(err));
      }
    };
  }

  /** The claims of a valid ID token; throws a ServiceError saying why one is not valid. */
  async verify(jwt: string): Promise<JWTPayload> {
    const { issuer, audience } = this.settings;
    let unverified: JWTPayload;
    let kid: string | undefined;
    try {
      unverified = decodeJwt(jwt);
      kid = decodeProtectedHeader(jwt).kid;
    } catch {
      throw refused('it is not a JSON Web Token (three base64url parts: header, claims, signature)');
    }
    // Checked before the signature, which another issuer's key could not pass: said as what it is.
    if (unverified.iss !== issuer)
      throw refused(
        `it was issued by ${JSON.stringify(unverified.iss ?? null)}, and this server accepts ID tokens of ${issuer} only (setting oidcIssuer)`,
      );
    try {
      const { payload } = await jwtVerify(jwt, this.keys, {
        issuer,
        audience,
        algorithms: ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_S,
        currentDate: new Date(this.clock.now()),
      });
      return payload;
    } catch (err) {
      throw this.refusal(err, unverified, kid);
    }
  }

  private refusal(err: unknown, claims: JWTPayload, kid: string | undefined): Error {
    const { audience, jwksUrl } = this.settings;
    const key = kid === undefined ? 'a key without an id (kid)' : `key ${JSON.stringify(kid)}`;
    if (err instanceof KeysUnavailable) return new ServiceError('OIDC_KEYS_UNAVAILABLE', `${jwksUrl}: ${err.message}`);
    if (err instanceof errors.JWTExpired)
      return refused(`it expired at ${at(claims.exp)}; request a new ID token right before the call`);
    if (err instanceof errors.JWTClaimValidationFailed && err.claim === 'aud')
      return refused(
        `its audience is ${JSON.stringify(claims.aud ?? null)}, and this server expects "${audience}" (setting oidcAudience); request the token for that audience, e.g. core.getIDToken('${audience}')`,
      );
    if (err instanceof errors.JWTClaimValidationFailed && err.claim === 'nbf')
      return refused(`it is not valid before ${at(claims.nbf)}; check the clocks`);
    if (err instanceof errors.JWKSNoMatchingKey)
      return refused(`it is signed with ${key}, which the issuer's key set ${jwksUrl} does not hold`);
    if (err instanceof errors.JWSSignatureVerificationFailed)
      return refused(`its signature does not match ${key} of ${jwksUrl}: the token was altered or forged`);
    if (err instanceof errors.JOSEAlgNotAllowed)
      return refused(`it is signed with an algorithm other than ${ALGORITHMS.join(', ')}`);
    if (err instanceof errors.JOSEError) return refused(err.message);
    return err instanceof Error ? err : new Error(String(err));
  }
}
