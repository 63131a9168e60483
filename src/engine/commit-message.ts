/**
 * The messages of the commits a queue lands (`commitMessages`, a greenline extension): per-queue
 * templates of the merge commit's and the squash commit's title and body, a PR's own message given in
 * its description, and the pattern titles must match. Pure: every forge renders with it.
 *
 * A template holds placeholders in braces, `{{` and `}}` being literal braces:
 *
 *   {title} {number} {body} {author} {headBranch} {coAuthors} {batch}
 *
 * `{coAuthors}` is one `Co-authored-by: …` line per other author of the PR's commits, `{batch}` one
 * line `#N title` per PR merged with it. A PR's description may give its message in a marked block
 * (its first line the title, the rest the body), which wins over the templates:
 *
 *   <!-- greenline:commit-message -->
 *   feat(api): paging for /runs
 *
 *   Long description.
 *   <!-- /greenline:commit-message -->
 *
 * A line `merge-commit-title: <title>` in the description sets the title alone (contract §4). A
 * message given with the PR's submission (`/greenline merge --message "…"`, `commitMessage` of the
 * API) wins over all of these. Of a PR's own message, the first line is the title and the rest, when
 * there is any, the body; without a body the templates' (or the forge's) body is kept.
 */

/** The queue setting: each template absent = the forge's own message; `titlePattern` absent = any title. */
export interface CommitMessageSettings {
  mergeTitle?: string;
  mergeBody?: string;
  squashTitle?: string;
  squashBody?: string;
  /** A regular expression every landed commit title must match, checked when a PR is submitted. */
  titlePattern?: string;
}

/** What a commit message may say of a PR. */
export interface CommitPr {
  number: number;
  title: string;
  /** The PR's description (on the git forge: the head commit's message after its first line). */
  body: string;
  author: string;
  headBranch?: string;
  /** Other authors of the PR's commits, as `Name <email>` or a login. */
  coAuthors: readonly string[];
  /** The PR's own message, given with its submission (`/greenline merge --message`). */
  message?: string;
}

export interface CommitMessage {
  title: string;
  body: string;
}

export const PLACEHOLDERS = ['title', 'number', 'body', 'author', 'headBranch', 'coAuthors', 'batch'] as const;
const TEMPLATES = ['mergeTitle', 'mergeBody', 'squashTitle', 'squashBody'] as const;
const TOKEN = /\{\{|\}\}|\{([^{}]*)\}/g;

const BLOCK = /<!--\s*greenline:commit-message\s*-->\r?\n?([\s\S]*?)<!--\s*\/greenline:commit-message\s*-->/;
const TITLE_LINE = /^merge-commit-title: *(.+?) *$/m;

/** The message a PR's description gives in its marked block; null when it has none (or an empty one). */
export function messageFromDescription(body: string | null | undefined): CommitMessage | null {
  return parseMessage(BLOCK.exec(body ?? '')?.[1] ?? '');
}

/** A message as a title and a body; null when it is empty. */
function parseMessage(text: string): CommitMessage | null {
  const [title, ...rest] = text.replace(/\r\n/g, '\n').trim().split('\n');
  return title ? { title: title.trim(), body: rest.join('\n').trim() } : null;
}

/** The title a PR's description gives on a `merge-commit-title:` line; null when none. */
export function titleFromDescription(body: string | null | undefined): string | null {
  return TITLE_LINE.exec(body ?? '')?.[1] ?? null;
}

function render(template: string, pr: CommitPr, batch: readonly CommitPr[]): string {
  const values: Record<(typeof PLACEHOLDERS)[number], string> = {
    title: pr.title,
    number: String(pr.number),
    body: pr.body.trim(),
    author: pr.author,
    headBranch: pr.headBranch ?? '',
    coAuthors: pr.coAuthors.map((a) => `Co-authored-by: ${a}`).join('\n'),
    batch: batch.map((p) => `#${p.number} ${p.title}`).join('\n'),
  };
  return template.replace(TOKEN, (all, name?: string) =>
    all === '{{' ? '{' : all === '}}' ? '}' : values[name as keyof typeof values],
  );
}

/**
 * The message of the commit that lands `pr` with `kind`, in a batch of `batch`: the PR's own message
 * when its description gives one, else the queue's templates, each part absent from them being
 * `fallback`'s (the forge's own message).
 */
export function commitMessageFor(
  kind: 'merge' | 'squash',
  settings: CommitMessageSettings | null | undefined,
  pr: CommitPr,
  batch: readonly CommitPr[],
  fallback: CommitMessage,
): CommitMessage {
  const own = parseMessage(pr.message ?? '') ?? messageFromDescription(pr.body);
  const title = settings?.[`${kind}Title`];
  const body = settings?.[`${kind}Body`];
  return {
    title:
      own?.title ??
      titleFromDescription(pr.body) ??
      (title === undefined ? fallback.title : oneLine(render(title, pr, batch))),
    body: own?.body || (body === undefined ? fallback.body : render(body, pr, batch).trim()),
  };
}

const oneLine = (s: string): string => s.replace(/\s*\n\s*/g, ' ').trim();

/** A message as git stores it: the title, a blank line and the body (when there is one). */
export const gitMessage = (m: CommitMessage): string => (m.body ? `${m.title}\n\n${m.body}\n` : `${m.title}\n`);

/** Why a title does not match the queue's `titlePattern`, in words; null when it matches or there is none. */
export function titlePatternRefusal(settings: CommitMessageSettings | null | undefined, title: string): string | null {
  const pattern = settings?.titlePattern;
  if (pattern === undefined || new RegExp(pattern, 'u').test(title)) return null;
  return `the commit title "${title}" does not match the queue's titlePattern /${pattern}/: change the PR's title, or give the message in the PR description between <!-- greenline:commit-message --> and <!-- /greenline:commit-message -->`;
}

/** What is wrong with a `commitMessages` setting, naming the field; null when it is sound. */
export function commitMessagesProblem(v: unknown): string | null {
  if (v === null) return null;
  if (typeof v !== 'object' || Array.isArray(v)) return 'must be an object of templates, or null';
  for (const [key, value] of Object.entries(v)) {
    if (key === 'titlePattern') {
      if (typeof value !== 'string') return 'titlePattern must be a regular expression as a string';
      try {
        new RegExp(value, 'u');
      } catch (err) {
        return `titlePattern is not a regular expression: ${(err as Error).message}`;
      }
      continue;
    }
    if (!(TEMPLATES as readonly string[]).includes(key)) {
      return `has no field "${key}": use ${[...TEMPLATES, 'titlePattern'].join(', ')}`;
    }
    if (typeof value !== 'string') return `${key} must be a template string`;
    if (key.endsWith('Title') && value.trim() === '') return `${key} must not be empty (leave it out for the default)`;
    for (const [, name] of value.matchAll(TOKEN)) {
      if (name !== undefined && !(PLACEHOLDERS as readonly string[]).includes(name)) {
        return `${key} has an unknown placeholder {${name}}: use ${PLACEHOLDERS.map((p) => `{${p}}`).join(', ')} (write {{ and }} for braces)`;
      }
    }
    if (/[{}]/.test(value.replace(TOKEN, ''))) return `${key} has an unmatched brace: write {{ and }} for braces`;
  }
  return null;
}
