/**
 * The path templates of an API description as a tree of segments, and the operation a `METHOD path`
 * is. At each segment the most specific kind wins: a literal segment (`pulls`), then a segment of
 * literal text and parameters (`{index}.{diffType}`, `{base}...{head}`), then a whole-segment
 * parameter (`{pull_number}`). A parameter marked `multi` (GitHub's `x-multi-segment`: `git/ref/{ref}`,
 * `branches/{branch}`) may span slashes, taking as few segments as leave a match
 * (`commits/{ref}/check-runs`). Two templates for one URL and method: the first one added keeps it.
 */

interface Node<T> {
  literal: Map<string, Node<T>>;
  mixed: Map<string, { re: RegExp; node: Node<T> }>;
  param: { multi: boolean; node: Node<T> } | null;
  ops: Map<string, T>;
}

export interface Found<T> {
  op: T;
  /** Parameter values in the template's order, decoded. */
  values: string[];
}

const newNode = <T>(): Node<T> => ({ literal: new Map(), mixed: new Map(), param: null, ops: new Map() });

/** `{index}.{diffType}` → a pattern capturing each parameter. */
const mixedPattern = (seg: string): RegExp =>
  new RegExp(
    `^${seg
      .split(/\{[^}]+\}/)
      .map((lit) => lit.replace(/[.+?^${}()|[\]\\*]/g, '\\$&'))
      .join('([^/]+?)')}$`,
  );

/** The names of a template's parameters, in order. */
export const templateParams = (template: string): string[] => [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);

export class PathTree<T> {
  private readonly root = newNode<T>();

  /** Adds `op` as `method template`; `multi(name)`: whether parameter `name` may span slashes. */
  add(template: string, method: string, op: T, multi: (name: string) => boolean): void {
    let node = this.root;
    for (const seg of template.split('/').filter(Boolean)) {
      const whole = /^\{([^}]+)\}$/.exec(seg)?.[1];
      if (whole !== undefined) {
        node.param ??= { multi: false, node: newNode() };
        node.param.multi ||= multi(whole);
        node = node.param.node;
      } else if (seg.includes('{')) {
        if (!node.mixed.has(seg)) node.mixed.set(seg, { re: mixedPattern(seg), node: newNode() });
        node = node.mixed.get(seg)!.node;
      } else {
        if (!node.literal.has(seg)) node.literal.set(seg, newNode());
        node = node.literal.get(seg)!;
      }
    }
    if (!node.ops.has(method)) node.ops.set(method, op);
  }

  /** The operation of `METHOD path` (percent-encoded as sent) with its parameter values, or null. */
  find(method: string, rawPath: string): Found<T> | null {
    const segs = rawPath.split('/').filter(Boolean);
    const walk = (node: Node<T>, i: number, values: string[]): Found<T> | null => {
      if (i === segs.length) {
        const op = node.ops.get(method);
        return op === undefined ? null : { op, values };
      }
      const seg = decodeURIComponent(segs[i]!);
      const lit = node.literal.get(seg);
      const viaLiteral = lit ? walk(lit, i + 1, values) : null;
      if (viaLiteral) return viaLiteral;
      for (const { re, node: next } of node.mixed.values()) {
        const m = re.exec(seg);
        const found = m ? walk(next, i + 1, [...values, ...m.slice(1)]) : null;
        if (found) return found;
      }
      if (!node.param) return null;
      const { multi, node: next } = node.param;
      for (let end = i + 1; end <= (multi ? segs.length : i + 1); end++) {
        const value = segs.slice(i, end).map(decodeURIComponent).join('/');
        const found = walk(next, end, [...values, value]);
        if (found) return found;
      }
      return null;
    };
    return walk(this.root, 0, []);
  }
}
