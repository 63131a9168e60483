/** The token a request is made with (extension): what the dashboard shows and hides by. */
import { Type } from '@sinclair/typebox';
import { SCOPES } from '../../../app/scopes.js';
import { DateTime, Nullable, RequestObject } from './common.js';

export const GetCurrentTokenRequest = RequestObject({}, { description: 'An empty object: the token of the request' });

export const CurrentToken = Type.Object({
  id: Type.String({ description: 'The token id (`greenline token list`)' }),
  name: Type.String({ description: 'The name it was created with' }),
  org: Type.String({ description: 'Its organization' }),
  scopes: Type.Array(Type.Unsafe<string>({ type: 'string', enum: [...SCOPES] }), {
    description: 'What it may do, with what its scopes imply (read comes with every scope); see docs/security.md',
  }),
  repos: Nullable(
    Type.Array(Type.String(), {
      description: 'The repositories (`host/owner/name`) it is limited to; null: every repository of its organization',
    }),
  ),
  expiresAt: Nullable(DateTime('When it expires; null: never')),
});
