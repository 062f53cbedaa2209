import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands, extractBlocks } from '../docs/extract.ts';
import { sh, until } from '../docs/run.ts';
import { firstBookingBlock, firstBookingScript } from '../journeys/readme-booking.ts';
import { installedProject } from './packed.ts';

/**
 * The docs' steps as a reader of the installed package takes them: the tarball installed in a
 * fresh project (packed.ts), the README and docs read from node_modules, npm's own npx. The
 * README's first booking, run again and again on one data file, books every time; the scenario
 * step of docs/scenarios.md names the shipped scenarios, which live in node_modules there; and
 * docs/containers.md says that the files it names are not in the package.
 */
let work: string;
let project: string;
let installed: string;

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'tcs-readme-'));
  ({ project } = await installedProject(work));
  installed = join(project, 'node_modules', 'travel-commerce-sandbox');
}, 600_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** `npx sandbox start` in the project, in its own process group (npx passes no signal on); its URL once it serves. */
async function start(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn('npx', ['sandbox', 'start', '--port', '0', ...args], {
    cwd: project,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    env: { ...process.env, NO_COLOR: '1' },
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk));
  child.stderr!.on('data', (chunk: Buffer) => (out += chunk));
  await until(() => out.includes('Ctrl+C stops it') || child.exitCode !== null, 'sandbox start to serve', 120_000);
  const url = /is serving (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
  if (!url) throw new Error(`sandbox start did not serve:\n${out}`);
  return { url, child };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid!, 'SIGINT');
  await exited;
}

const installedText = (file: string) => readFileSync(join(installed, file), 'utf8');

// an install, then a sandbox and a dozen CLI starts through npm's npx on a busy 2-core machine
describe("the docs' steps from the installed package", { timeout: 300_000 }, () => {
  it("the README's first booking books on every run against one data file", async () => {
    const block = firstBookingBlock(extractBlocks('README.md', installedText('README.md')));
    // limits counted, not enforced: runs a second apart would spend the sandbox tier's burst of 5, which a reader never does
    const { url, child } = await start(['--data', join(project, 'db.json'), '--no-rate-limits']);
    try {
      // the first departure it finds has 8 seats and each run takes 2: the fifth run needs another
      const departures = new Set<string>();
      for (let run = 1; run <= 5; run++) {
        const ran = await sh(`set -e\n${firstBookingScript(block, url)}`, project);
        expect(ran.code, `run ${run}: ${ran.output}`).toBe(0);
        const booking = (JSON.parse(ran.output) as { data: { status: string; adults: number; departureId: string } }).data;
        expect(booking, `run ${run}`).toMatchObject({ status: 'pending', adults: 2 });
        departures.add(booking.departureId);
      }
      expect(departures.size).toBe(2);
    } finally {
      await stop(child);
    }
  });

  it("docs/scenarios.md's step names the shipped scenarios, which a project has in node_modules", async () => {
    const block = extractBlocks('docs/scenarios.md', installedText('docs/scenarios.md')).find((b) => b.code.includes('scenario validate'))!;
    const steps = commands(block).commands;
    expect(steps.some((c) => c.startsWith('npx sandbox scenario validate'))).toBe(true);
    for (const step of steps) {
      const ran = await sh(step, project);
      expect(ran.code, `${step}\n${ran.output}`).toBe(0);
      if (step.startsWith('npx sandbox scenario list')) {
        expect(ran.output).toContain('files: node_modules/travel-commerce-sandbox/scenarios/<name>.json;');
        expect(existsSync(join(project, 'node_modules/travel-commerce-sandbox/scenarios/sandbox-rate-limit.json'))).toBe(true);
      }
    }
    // the step as it was written before: the shell matches nothing in a project, and the line says what to type
    const old = await sh('npx sandbox scenario validate scenarios/*.json', project);
    expect(old.code).toBe(1);
    expect(old.output.trim()).toBe(
      'sandbox: scenarios/*.json: no file matches it (the shell left the pattern as written); the scenarios of node_modules/travel-commerce-sandbox/scenarios go by name: give booking-lifecycle-webhooks instead (sandbox scenario list shows them all)',
    );
  });

  it('docs/containers.md says that the files it names are in the repository, not in the package', () => {
    const doc = installedText('docs/containers.md');
    const named = ['Dockerfile', 'docker/healthcheck.mjs', '.dockerignore'];
    for (const file of named) expect(doc, file).toContain(`\`${file}\``);
    const absent = named.filter((file) => !existsSync(join(installed, file)));
    expect(absent).toEqual(named);
    expect(doc).toMatch(/`Dockerfile`, `docker\/healthcheck\.mjs` and `\.dockerignore` are files of\s+the repository, not of the npm package/);
  });
});
