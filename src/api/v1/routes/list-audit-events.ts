import type { AuditService } from '../../../app/service-port.js';
import { repoSlug } from '../../../app/repo-binding.js';
import { authOf } from '../../auth.js';
import type { Route } from '../../route-deps.js';
import { ListAuditEventsRequest, ListAuditEventsResponse } from '../schemas/audit.js';
import { replies } from '../schemas/common.js';

/**
 * Extension: POST /v1/listAuditEvents — who changed what in the organization, newest first, a page
 * at a time (docs/audit-log.md).
 */
export const listAuditEvents: Route<AuditService> = (app, { service }) => {
  app.post(
    '/listAuditEvents',
    {
      config: { scopes: ['admin', 'audit:read'] },
      schema: {
        summary: 'List audit log entries (extension)',
        description:
          "Every change — by API token, forge user, CLI or greenline itself — newest first, filtered by repo, targetBranch, actor, action and time. Not part of Trunk's API.",
        tags: ['Extensions'],
        body: ListAuditEventsRequest,
        response: replies(ListAuditEventsResponse),
      },
    },
    async (request) => {
      const { repo, ...filters } = request.body;
      return service.listAuditEvents(authOf(request), {
        ...filters,
        ...(repo ? { repo: repoSlug(repo) } : {}),
      });
    },
  );
};
