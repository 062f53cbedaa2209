import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The one extractor of the docs' code blocks (docs as tests): the
 * README and docs/*.md, each fenced block with its language and the HTML
 * comment right before it (blank lines between allowed). The docs test runs
 * the shell blocks, the consumer test type-checks the ```ts blocks, and the
 * blocks that show a file of examples/ must show it exactly.
 *
 * The comment is `<!-- docs-test: part; part; ... -->`, its parts:
 * - `skip — why`: the block is not run here; the reason is mandatory.
 * - `cwd=path`: run from that directory of the repository (default: the root,
 *   the clone the README's first commands are typed in).
 * - `scratch`: run from a fresh directory, as a project of the reader's would
 *   be (inside the repository's ignored `.sandbox/`, so `npx sandbox` still
 *   resolves; removed afterwards): for commands that write files.
 * - `needs-running-sandbox`: the doc's sandbox must run first (see the test).
 * - `receiver=3000`: the block forwards webhooks to `localhost:3000`, the
 *   reader's app; the test runs a receiver in its place and checks it got one.
 * - `omit=<command> — why`: that command line of the block is not run.
 * - `expect=<text>`: the block's output must contain the text (whitespace runs
 *   compared as one space).
 * - `one-shell`: the block's commands run one after another in one shell, as
 *   in the reader's terminal, so a variable one line sets is there for the next
 *   (the first booking's id, read back); the first failing line fails it.
 */
export const root = fileURLToPath(new URL('../..', import.meta.url));

export interface Directive {
  skip?: string;
  cwd?: string;
  scratch?: boolean;
  needsSandbox?: boolean;
  receiver?: number;
  omit: { command: string; why: string }[];
  expect: string[];
  oneShell?: boolean;
}

export interface DocBlock {
  /** README.md or docs/<name>.md */
  file: string;
  /** the line of the opening fence, 1-based */
  line: number;
  lang: string;
  code: string;
  directive: Directive;
}

/** Languages of blocks a reader is told to run or paste; the others are output, formats, diagrams. */
export const RUNNABLE = new Set(['sh', 'bash', 'ts', 'typescript', 'js', 'yaml']);
export const SHELL = new Set(['sh', 'bash']);

export const docFiles = (): string[] => [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

const DASH = /\s+—\s+/;

export function parseDirective(comment: string | undefined): Directive {
  const out: Directive = { omit: [], expect: [] };
  if (!comment) return out;
  // a part ends at a `;` that starts the next part, so a reason may hold `;` of its own
  for (const raw of comment
    .split(/;\s*(?=skip\b|scratch|cwd=|needs-running-sandbox|receiver=|omit=|expect=|one-shell)/)
    .map((p) => p.trim())
    .filter(Boolean)) {
    const [head, ...rest] = raw.split(DASH);
    const why = rest.join(' — ').trim();
    if (head === 'skip')
      out.skip =
        why ||
        (() => {
          throw new Error(`docs-test: skip needs a reason ("skip — why"): ${comment}`);
        })();
    else if (head === 'needs-running-sandbox') out.needsSandbox = true;
    else if (head === 'scratch') out.scratch = true;
    else if (head === 'one-shell') out.oneShell = true;
    else if (head!.startsWith('cwd=')) out.cwd = head!.slice(4);
    else if (head!.startsWith('receiver=')) out.receiver = Number(head!.slice(9));
    else if (head!.startsWith('omit=') && why) out.omit.push({ command: head!.slice(5).trim(), why });
    else if (raw.startsWith('expect=')) out.expect.push(raw.slice(7).trim());
    else
      throw new Error(
        `docs-test: unknown part "${raw}" (skip — why; cwd=; scratch; needs-running-sandbox; receiver=; omit=<command> — why; expect=; one-shell)`,
      );
  }
  return out;
}

export function extractBlocks(file: string, text = readFileSync(join(root, file), 'utf8')): DocBlock[] {
  const lines = text.split('\n');
  const blocks: DocBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```([\w-]*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.findIndex((l, j) => j > i && l.startsWith('```'));
    if (end < 0) throw new Error(`${file}:${i + 1}: a code fence is never closed`);
    let k = i - 1;
    while (k >= 0 && lines[k]!.trim() === '') k--;
    const comment = /^<!--\s*docs-test:\s*([\s\S]*?)\s*-->$/.exec(lines[k]?.trim() ?? '')?.[1];
    blocks.push({ file, line: i + 1, lang: open[1]!, code: `${lines.slice(i + 1, end).join('\n')}\n`, directive: parseDirective(comment) });
    i = end;
  }
  return blocks;
}

export const allBlocks = (): DocBlock[] => docFiles().flatMap((file) => extractBlocks(file));

/** The examples/ file a ```ts or ```js block shows, named by its first line (`// vitest.config.ts`), and the block without that line. */
export function exampleFile(block: DocBlock): { path: string; body: string } | null {
  if (!['ts', 'js'].includes(block.lang)) return null;
  const name = /^\/\/ ([\w.-]+\.(?:ts|js|mjs))\b/.exec(block.code)?.[1];
  if (!name) return null;
  const path = readdirSync(join(root, 'examples'))
    .map((dir) => join('examples', dir, name))
    .find((p) => existsSync(join(root, p)));
  return path ? { path, body: block.code.slice(block.code.indexOf('\n') + 1) } : null;
}

/**
 * The commands of a shell block: one a line (a `\` at the end continues it),
 * comment lines dropped. A block whose lines start with `$ ` is a transcript:
 * those are its commands, the other lines the output it shows (`...` elides).
 */
export function commands(block: DocBlock): { commands: string[]; shown: string[] } {
  const joined = block.code.replace(/\\\n\s*/g, ' ').split('\n');
  const transcript = joined.some((l) => l.startsWith('$ '));
  const cmds = transcript ? joined.filter((l) => l.startsWith('$ ')).map((l) => l.slice(2)) : joined.filter((l) => l.trim() && !l.trim().startsWith('#'));
  const shown = transcript ? joined.filter((l) => !l.startsWith('$ ') && l.trim() && l.trim() !== '...') : [];
  const omitted = new Set(block.directive.omit.map((o) => o.command));
  return { commands: cmds.map((c) => c.trim()).filter((c) => !omitted.has(c.replace(/\s+#.*$/, '').trim())), shown };
}
