/**
 * What a caller presents where an API token goes (v1 `x-api-token`, v2 `Authorization: Bearer`):
 * a value shaped like a JSON Web Token is a CI provider's OIDC ID token (ci-identity.ts), anything
 * else an API token (tokens.ts). Both arrive in the same header so that Trunk's clients, whose token
 * input receives the ID token, work unchanged.
 */
import { ServiceError } from '../../lib/errors.js';
import type { AuthService } from '../service-port.js';
import type { AuthContext } from '../request-scope.js';
import { type CiIdentity, looksLikeJwt } from './ci-identity.js';

export class Credentials implements AuthService {
  constructor(
    private readonly tokens: AuthService,
    /** null: this server accepts no ID token (setting oidcIssuer empty). */
    private readonly ciIdentity: CiIdentity | null,
  ) {}

  /**
   * The caller a credential stands for: null for an unknown API token; an ID token that is refused
   * throws a ServiceError saying why.
   */
  async authenticate(credential: string): Promise<AuthContext | null> {
    if (!looksLikeJwt(credential)) return this.tokens.authenticate(credential);
    if (!this.ciIdentity)
      throw new ServiceError(
        'OIDC_TOKEN_REFUSED',
        'this server accepts no ID tokens (its setting oidcIssuer is empty); send an API token instead',
      );
    return this.ciIdentity.authenticate(credential);
  }
}
