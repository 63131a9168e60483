/** Schemas of the audit log extension endpoint (docs/audit-log.md). */
import { Type } from '@sinclair/typebox';
import { ACTOR_KINDS, AUDIT_ACTIONS } from '../../../audit/audit-log.js';
import { MAX_TAKE, DEFAULT_TAKE } from '../../../audit/audit-read.js';
import { DateTime, Name, Nullable, Repo, RequestObject } from './common.js';

const Time = (description: string) =>
  Type.String({ format: 'date-time', 'x-expected': 'an ISO-8601 date-time such as 2026-01-31T12:00:00Z', description });

export const ListAuditEventsRequest = RequestObject({
  repo: Type.Optional(Repo),
  targetBranch: Type.Optional(Name({ description: 'Only changes of the queue of this branch' })),
  actor: Type.Optional(
    Name({ description: "Only changes by this actor: a token's id or name, a forge login, an OS user, or system" }),
  ),
  action: Type.Optional(
    Type.Union(
      Object.keys(AUDIT_ACTIONS).map((a) => Type.Literal(a)),
      { 'x-expected': `one of ${Object.keys(AUDIT_ACTIONS).join(', ')}`, description: 'Only this action' },
    ),
  ),
  from: Type.Optional(Time('Only changes at or after this time')),
  to: Type.Optional(Time('Only changes at or before this time')),
  cursor: Type.Optional(Name({ description: 'nextCursor of the previous page' })),
  take: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_TAKE, default: DEFAULT_TAKE, description: 'Page size' })),
});

const AuditEvent = Type.Object({
  at: DateTime('When the change was made'),
  actor: Type.Object({
    kind: Type.String({ description: `Who made it: one of ${ACTOR_KINDS.join(', ')}` }),
    id: Type.String({ description: "The token's id, the forge login, the OS user, or system" }),
    name: Type.String({ description: "The token's name, the forge login, the OS user, or greenline" }),
  }),
  action: Type.String({ description: 'What was done, e.g. queue.update (docs/audit-log.md lists them)' }),
  target: Type.Unknown({
    description: 'What it concerns: org, repo (HOST/OWNER/NAME), targetBranch, pr, token, webhook, channel …',
  }),
  changes: Nullable(
    Type.Object({}, { additionalProperties: true, description: 'Per setting: { "from": old, "to": new }' }),
  ),
  source: Nullable(
    Type.Object(
      {
        address: Type.Optional(Type.String({ description: "The client's address" })),
        userAgent: Type.Optional(Type.String()),
        xSource: Type.Optional(Type.String({ description: 'The x-source header' })),
      },
      { description: 'Where the request came from; null for the CLI, forge users and greenline itself' },
    ),
  ),
});

export const ListAuditEventsResponse = Type.Object({
  events: Type.Array(AuditEvent, { description: 'Newest first' }),
  nextCursor: Type.Optional(
    Type.String({ description: 'Present when older entries remain: the cursor of the next page' }),
  ),
});
