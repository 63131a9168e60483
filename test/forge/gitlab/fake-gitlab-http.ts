/**
 * What the fake GitLab's HTTP answers share: GitLab's offset pages (`page`, `per_page` 20 by default,
 * at most 100) with `x-next-page`, `x-page`, `x-per-page`, `x-prev-page`, `x-total`, `x-total-pages`
 * and `Link` (prev, next, first, last), and reading and sending bodies.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** A page of a list, with GitLab's `x-*` headers and `Link` (first, prev, next, last). */
export function page(items: unknown[], url: URL, base: string): { items: unknown[]; headers: Record<string, string> } {
  const perPage = Math.min(Math.max(Number(url.searchParams.get('per_page') ?? 20) || 20, 1), 100);
  const page = Math.max(Number(url.searchParams.get('page') ?? 1) || 1, 1);
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const link = (p: number, rel: string) => {
    const q = new URLSearchParams(url.searchParams);
    q.set('page', String(p));
    q.set('per_page', String(perPage));
    return `<${base}${url.pathname}?${q}>; rel="${rel}"`;
  };
  const links = [
    ...(page > 1 ? [link(page - 1, 'prev')] : []),
    ...(page < last ? [link(page + 1, 'next')] : []),
    link(1, 'first'),
    link(last, 'last'),
  ];
  return {
    items: items.slice((page - 1) * perPage, page * perPage),
    headers: {
      link: links.join(', '),
      'x-page': String(page),
      'x-per-page': String(perPage),
      'x-next-page': page < last ? String(page + 1) : '',
      'x-prev-page': page > 1 ? String(page - 1) : '',
      'x-total': String(items.length),
      'x-total-pages': String(last),
    },
  };
}

export function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = body === null || body === undefined || status === 204 ? '' : JSON.stringify(body);
  res.writeHead(status, { ...(text ? { 'content-type': 'application/json' } : {}), ...headers });
  res.end(text);
}
