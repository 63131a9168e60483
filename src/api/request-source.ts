/** Where an API request came from, as the audit log records it (docs/audit-log.md): never a credential. */
import type { FastifyRequest } from 'fastify';
import type { AuditSource } from '../audit/audit-log.js';

/** Longest header value kept. */
const MAX_LENGTH = 200;

const headerOf = (request: FastifyRequest, name: string): string | undefined => {
  const value = request.headers[name];
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  return text ? text.slice(0, MAX_LENGTH) : undefined;
};

/** The client's address, its user agent and its `x-source` header. */
export function sourceOf(request: FastifyRequest): AuditSource {
  const userAgent = headerOf(request, 'user-agent');
  const xSource = headerOf(request, 'x-source');
  return {
    address: request.ip,
    ...(userAgent !== undefined ? { userAgent } : {}),
    ...(xSource !== undefined ? { xSource } : {}),
  };
}
