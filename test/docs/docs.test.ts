import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allBlocks, commands, docFiles, exampleFile, extractBlocks, root, RUNNABLE, SHELL, type DocBlock } from './extract.ts';
import { Background as Spawned, ensureBuilt, freePort, listening, LONG_RUNNING, npxShim, receiver, sh as shell, startCommand, until } from './run.ts';

/**
 * Docs as tests: every shell block of README.md and docs/*.md runs
 * as written, from the directory its text implies (extract.ts reads the
 * `<!-- docs-test: ... -->` comment before a block; run.ts says what is
 * substituted: ports, and a receiver for the reader's app). A command that
 * exits non-zero, or prints other than the doc shows, fails. The blocks that
 * show a file of examples/ must show it exactly; those files run through the
 * README's own commands. The ```ts
 * modules are type-checked, and the programmatic one run, by
 * test/package/consumer.test.ts from a packed tarball.
 */
type Plan = { kind: 'shell' } | { kind: 'example'; path: string; body: string } | { kind: 'module' } | { kind: 'skip'; why: string };

function plan(block: DocBlock): Plan {
  if (block.directive.skip) return { kind: 'skip', why: block.directive.skip };
  if (SHELL.has(block.lang)) return { kind: 'shell' };
  const example = exampleFile(block);
  if (example) return { kind: 'example', ...example };
  if (block.lang === 'ts') return { kind: 'module' };
  return { kind: 'skip', why: '' }; // refused below: a runnable block must run or say why not
}

/** The repository's ignored .sandbox/ (.gitignore), where scratch directories go. */
const scratchRoot = (): string => {
  mkdirSync(join(root, '.sandbox'), { recursive: true });
  return join(root, '.sandbox');
};

const squash = (text: string) => text.replace(/\s+/g, ' ').trim();

// every command of the docs with the fast npx of run.ts
const sh = (command: string, cwd: string, extra: Record<string, string> = {}) => shell(command, cwd, { ...npxShim(), ...extra });
class Background extends Spawned {
  constructor(command: string, cwd: string, extra: Record<string, string>) {
    super(command, cwd, { ...npxShim(), ...extra });
  }
}

beforeAll(ensureBuilt, 120_000);

describe("the docs' code blocks", () => {
  it("run `npx sandbox` as npm's npx runs it in the clone (the other blocks take a shortcut to the same bin: run.ts)", async () => {
    const real = await shell('npx sandbox --version', root);
    const short = await sh('npx sandbox --version', root);
    expect(real.code, real.output).toBe(0);
    expect(short.output).toBe(real.output);
  });

  it('each runnable block runs, shows an examples/ file, is a module the consumer test checks, or says why not', () => {
    const silent = allBlocks()
      .filter((b) => RUNNABLE.has(b.lang))
      .filter((b) => {
        const p = plan(b);
        return p.kind === 'skip' && !p.why;
      });
    expect(silent.map((b) => `${b.file}:${b.line} (${b.lang}): run it, or say why not with <!-- docs-test: skip — why -->`)).toEqual([]);
  });

  it('put no command in a block without a language (it would never run)', () => {
    const hidden = allBlocks().filter((b) => !RUNNABLE.has(b.lang) && /^(?:\$ )?(?:npx|npm|curl|node) /m.test(b.code));
    expect(hidden.map((b) => `${b.file}:${b.line}: commands in a \`\`\`${b.lang} block: make it \`\`\`sh`)).toEqual([]);
  });

  it("show the recipes' example files exactly as they are", () => {
    const shown = allBlocks()
      .map(plan)
      .filter((p) => p.kind === 'example');
    expect(shown.map((p) => p.path).sort()).toEqual([
      'examples/jest-workers/jest.config.js',
      'examples/jest-workers/jest.global-setup.mjs',
      'examples/jest-workers/jest.global-teardown.mjs',
      'examples/jest-workers/jest.worker-setup.mjs',
      'examples/parallel-workers/rate-limits.test.ts',
      'examples/parallel-workers/sandbox.global-setup.ts',
      'examples/parallel-workers/sandbox.worker-setup.ts',
      'examples/parallel-workers/vitest.config.ts',
    ]);
    for (const p of shown) expect(p.body, p.path).toBe(readFileSync(join(root, p.path), 'utf8'));
  });
});

for (const file of docFiles()) {
  const blocks = extractBlocks(file).filter((b) => SHELL.has(b.lang));
  if (blocks.length === 0) continue;

  describe(file, () => {
    // one sandbox per doc: its first `npx sandbox start`, or a bare one for a block that needs it
    let sandbox: { port: number; process: Background } | null = null;
    // Ctrl+C, as the docs say; npx itself dies of the signal, so its exit code says nothing of the sandbox's
    afterAll(async () => {
      await sandbox?.process.stop();
    }, 60_000);

    const start = async (command: string, cwd: string): Promise<Background> => {
      const port = await freePort();
      const process = new Background(startCommand(command, port), cwd, {});
      await process.printed(`http://127.0.0.1:${port}`);
      sandbox ??= { port, process };
      return process;
    };

    for (const block of blocks) {
      const { directive } = block;
      const title = `${file}:${block.line}: ${commands(block).commands.join(' ; ').slice(0, 140)}`;
      if (directive.skip) {
        it.skip(`${title} (skipped: ${directive.skip})`, () => {});
        continue;
      }
      it(title, async () => {
        const cwd = directive.scratch ? mkdtempSync(join(scratchRoot(), 'docs-test-')) : join(root, directive.cwd ?? '.');
        if (directive.needsSandbox && !sandbox) await start('npx sandbox start', root);
        const app = directive.receiver ? await receiver() : null;
        const own: Background[] = [];
        // each `npx sandbox start --detach` runs as written, on a free port its written port's URLs
        // (4010 unless it names another) are moved to, in every line of the block; stopped at the end
        const detached = new Map<number, number>();
        let output = '';
        try {
          const { commands: listed, shown } = commands(block);
          const lines: string[] = [];
          for (const line of listed) {
            if (!/^npx sandbox start\b.*--detach\b/.test(line)) {
              lines.push(line);
              continue;
            }
            const written = Number(/--port (\d+)\b/.exec(line)?.[1] ?? 4010);
            // a port just closed may be handed out again: two starts of one block must not get the same
            let port = await freePort();
            while ([...detached.values()].includes(port)) port = await freePort();
            detached.set(written, port);
            lines.push(startCommand(line, port).replace(new RegExp(`--port ${written}\\b`), `--port ${port}`));
          }
          // the reader's commands without --url reach the sandbox on 4010, the first detached one
          const home = detached.get(4010) ?? detached.values().next().value;
          // one-shell: the lines share the reader's shell (variables), stopping at the first that fails
          const cmds = directive.oneShell ? [`set -e\n${lines.join('\n')}`] : lines;
          for (const written of cmds) {
            let command = written;
            if (/^npx sandbox start\b/.test(command) && !/--detach\b/.test(command)) {
              const process = await start(command, cwd);
              if (process !== sandbox?.process) own.push(process);
              continue;
            }
            for (const [from, to] of detached) command = command.replace(new RegExp(`(?:localhost|127\\.0\\.0\\.1):${from}\\b`, 'g'), `127.0.0.1:${to}`);
            if (detached.size === 0 && sandbox) command = command.replace(/(?:localhost|127\.0\.0\.1):4010\b/g, `127.0.0.1:${sandbox.port}`);
            if (app) command = command.replace(/localhost:3000\b/g, `127.0.0.1:${app.port}`);
            const url = home ?? sandbox?.port;
            // SANDBOX_URL stands for the sandbox on 4010, where the CLI looks without --url: a line of the
            // CLI gets it; a test runner's line runs as in the reader's shell, where the recipes' global
            // setup, finding no SANDBOX_URL, starts a sandbox of its own (README, "Parallel test workers")
            const extra: Record<string, string> = url && /\bnpx sandbox\b/.test(command) ? { SANDBOX_URL: `http://127.0.0.1:${url}` } : {};
            if (LONG_RUNNING.test(command) && !/--detach\b/.test(command)) {
              const process = new Background(command, cwd, extra);
              own.push(process);
              await process.printed();
              continue;
            }
            const result = await sh(command, cwd, extra);
            output += result.output;
            expect(result.code, `${written}\n${result.output}`).toBe(0);
          }
          if (app) {
            await until(() => app.received.length > 0, `a webhook at the receiver standing in for localhost:3000 (${file}:${block.line})`);
            expect(app.received[0]!.path).toBe('/webhooks');
            expect(app.received[0]!.headers['webhook-signature']).toMatch(/^v1,/);
          }
          const all = squash(output + own.map((p) => p.output).join('') + (sandbox?.process.output ?? ''));
          for (const text of [...directive.expect, ...shown]) expect(all, `${file}:${block.line} should print: ${text}`).toContain(squash(text));
        } finally {
          // each block stops its own (the docs say to): stop what still listens, after a failure
          for (const port of detached.values()) if (await listening(port)) await sh(`npx sandbox stop --port ${port}`, cwd, {});
          for (const process of own.reverse()) await process.stop();
          await app?.close();
          if (directive.scratch) rmSync(cwd, { recursive: true, force: true });
        }
      }, 180_000);
    }
  });
}
