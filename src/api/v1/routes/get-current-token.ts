import { SCOPES } from '../../../app/scopes.js';
import { authOf } from '../../auth.js';
import type { Route } from '../../route-deps.js';
import { replies } from '../schemas/common.js';
import { CurrentToken, GetCurrentTokenRequest } from '../schemas/tokens.js';

/**
 * Extension: POST /v1/getCurrentToken — the token the request is made with: its scopes,
 * repositories and expiry, so that a client (the dashboard) offers only what the token may do.
 */
export const getCurrentToken: Route = (app) => {
  app.post(
    '/getCurrentToken',
    {
      config: { scopes: ['read'] },
      schema: {
        summary: 'Describe the token of the request: scopes, repositories, expiry (extension)',
        description: "Never the secret. Not part of Trunk's API.",
        tags: ['Extensions'],
        body: GetCurrentTokenRequest,
        response: replies(CurrentToken),
      },
    },
    async (request) => {
      const ctx = authOf(request);
      return {
        id: ctx.tokenId,
        name: ctx.tokenName ?? '',
        org: ctx.orgName,
        scopes: SCOPES.filter((s) => ctx.scopes.has(s)),
        repos: ctx.repos ? [...ctx.repos] : null,
        expiresAt: ctx.expiresAt === undefined ? null : new Date(ctx.expiresAt).toISOString(),
      };
    },
  );
};
