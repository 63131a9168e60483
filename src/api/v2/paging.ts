/**
 * The v2 paging envelope `{ data, nextCursor, hasMore, total? }`. A cursor is opaque to clients:
 * base64url JSON of the operation, a digest of the filters and the position after the page's last
 * item. One given back to another operation or with other filters is 400 INVALID_CURSOR.
 */
import { createHash } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { V2Error } from './errors.js';

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;

export const PageQuery = {
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LIMIT, description: 'Items per page (default 25)' })),
  cursor: Type.Optional(Type.String({ minLength: 1, description: 'nextCursor of the previous page, as given' })),
  includeTotal: Type.Optional(Type.Boolean({ description: 'Add `total`, the count of all matching items' })),
};

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
  hasMore: boolean;
  total?: number;
}

const filterDigest = (filters: unknown): string =>
  createHash('sha256').update(JSON.stringify(filters)).digest('base64url').slice(0, 16);

export interface Cursor<P> {
  op: string;
  filters: unknown;
  /** The position the request's cursor names, or undefined on the first page. */
  position: P | undefined;
}

/** Reads `cursor` for operation `op` and these filters. */
export function readCursor<P>(op: string, filters: unknown, cursor: string | undefined): Cursor<P> {
  if (cursor === undefined) return { op, filters, position: undefined };
  let parsed: { o?: unknown; f?: unknown; p?: unknown };
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = {};
  }
  if (parsed?.o !== op || parsed.f !== filterDigest(filters) || parsed.p === undefined)
    throw new V2Error(
      400,
      'INVALID_CURSOR',
      'cursor is not a nextCursor this operation issued for these filters; start again without cursor',
    );
  return { op, filters, position: parsed.p as P };
}

/** The page of `rows` (fetched with limit + 1 to know whether more follow). */
export function pageOf<R, T, P>(
  cursor: Cursor<P>,
  rows: R[],
  limit: number,
  positionOf: (row: R) => P,
  out: (row: R) => T,
  total?: number,
): Page<T> {
  const items = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  const nextCursor = hasMore
    ? Buffer.from(
        JSON.stringify({ o: cursor.op, f: filterDigest(cursor.filters), p: positionOf(items[items.length - 1]!) }),
      ).toString('base64url')
    : null;
  return { data: items.map(out), nextCursor, hasMore, ...(total !== undefined ? { total } : {}) };
}

/** Pages a list held in memory: the position is the index of the next item. */
export function pageOfList<T>(
  op: string,
  filters: unknown,
  query: { limit?: number; cursor?: string; includeTotal?: boolean },
  all: T[],
): Page<T> {
  const limit = query.limit ?? DEFAULT_LIMIT;
  const cursor = readCursor<number>(op, filters, query.cursor);
  const start = cursor.position ?? 0;
  if (!Number.isInteger(start) || start < 0) throw new V2Error(400, 'INVALID_CURSOR', 'cursor is not valid');
  const rows = all.slice(start, start + limit + 1).map((item, i) => ({ item, next: start + i + 1 }));
  return pageOf(
    cursor,
    rows,
    limit,
    (r) => r.next,
    (r) => r.item,
    query.includeTotal ? all.length : undefined,
  );
}
