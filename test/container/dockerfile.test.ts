import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KEYS } from '../helpers/sandbox.ts';
import { BIN } from '../helpers/cli.ts';
import { freePort } from '../helpers/free-port.ts';

/**
 * No image can be built here, so what the Dockerfile
 * decides is run without Docker: its ENV and ENTRYPOINT, as PID 1 of a PID
 * namespace of its own (unshare), answering through 0.0.0.0 with a container's
 * Host name, its HEALTHCHECK script, and SIGTERM to PID 1 (docker stop)
 * stopping it cleanly with the data flushed.
 */
const ROOT = join(import.meta.dirname, '../..');
const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
/** the final stage: what runs in the container */
const image = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));

/** ENV A=1 \ B=2 ... of the image, as name -> value */
function imageEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [, body] of image.matchAll(/^ENV ((?:.*\\\n)*.*)$/gm)) {
    for (const [, name, value] of body!.matchAll(/(\w+)=(\S*)/g)) env[name!] = value!;
  }
  return env;
}
const execForm = (instruction: string): string[] => JSON.parse(new RegExp(`^${instruction} .*?(\\[.*\\])$`, 'm').exec(image)![1]!) as string[];

const canUnshare = spawnSync('unshare', ['--user', '--map-root-user', '--pid', '--fork', '--mount-proc', 'true']).status === 0;

let dir: string;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the Dockerfile', () => {
  it('binds 0.0.0.0 on 4010 with the data in /data, health-checks /__sandbox/health and runs `sandbox start`', () => {
    expect(imageEnv()).toEqual({ SANDBOX_HOST: '0.0.0.0', SANDBOX_PORT: '4010', SANDBOX_DATA: '/data/db.json' });
    expect(image).toMatch(/^EXPOSE 4010$/m);
    expect(execForm('ENTRYPOINT')).toEqual(['sandbox', 'start']);
    expect(execForm('HEALTHCHECK')).toEqual(['node', '/usr/local/lib/sandbox-healthcheck.mjs']);
    expect(image).toContain('COPY docker/healthcheck.mjs /usr/local/lib/sandbox-healthcheck.mjs');
    expect(readFileSync(join(ROOT, 'docker/healthcheck.mjs'), 'utf8')).toContain('/__sandbox/health');
  });

  it.skipIf(!canUnshare)('its entry command, as PID 1 configured by the environment, answers through 0.0.0.0 and stops cleanly on SIGTERM', async () => {
    dir = await mkdtemp(join(tmpdir(), 'sandbox-container-'));
    const port = await freePort();
    const token = 'container-test-token';
    const env = {
      ...process.env,
      ...imageEnv(),
      SANDBOX_PORT: String(port),
      SANDBOX_DATA: join(dir, 'db.json'),
      SANDBOX_CONTROL_TOKEN: token,
      SANDBOX_CLOCK: 'manual',
      NO_COLOR: '1',
    };
    // `sandbox` of the ENTRYPOINT is this repository's bin; unshare makes it PID 1 of a namespace of its own
    const [, ...entryArgs] = execForm('ENTRYPOINT');
    const unshare = spawn('unshare', ['--user', '--map-root-user', '--pid', '--fork', '--mount-proc', process.execPath, BIN, ...entryArgs], { env, cwd: dir });
    let stdout = '';
    let stderr = '';
    unshare.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    unshare.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => unshare.on('close', (code) => resolve(code)));
    while (!stdout.includes('Ctrl+C')) {
      if (unshare.exitCode !== null) throw new Error(`the entry command exited: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(stdout).toContain(`is serving http://0.0.0.0:${port}`);
    expect(JSON.parse(await readFile(join(dir, 'db.json.lock'), 'utf8'))).toMatchObject({ pid: 1 });

    // through 0.0.0.0 under the container's name, as another container on its network calls it
    const headers = { host: `sandbox:${port}`, authorization: `Bearer ${KEYS.liveFull}` };
    const health = await get(port, '/__sandbox/health', { host: `sandbox:${port}`, 'x-sandbox-token': token });
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body).data.now).toBe('2026-01-15T09:00:00.000Z'); // SANDBOX_CLOCK=manual applied
    expect((await get(port, '/__sandbox/health', { host: `sandbox:${port}` })).status).toBe(401); // the token guards a non-loopback bind
    const created = await post(port, '/v1/forms', headers, { name: 'kept in the container', fields: [] });
    expect(created.status).toBe(201);

    // the image's HEALTHCHECK, with the container's environment
    expect(spawnSync(process.execPath, [join(ROOT, 'docker/healthcheck.mjs')], { env }).status).toBe(0);
    expect(spawnSync(process.execPath, [join(ROOT, 'docker/healthcheck.mjs')], { env: { ...env, SANDBOX_CONTROL_TOKEN: 'a-wrong-token' } }).status).toBe(1);

    // docker stop: SIGTERM to PID 1, seen from outside its namespace
    const pid1 = childOf(unshare.pid!);
    expect(pid1).toBeGreaterThan(1);
    process.kill(pid1, 'SIGTERM');
    expect(await exited).toBe(0);
    expect(stderr).toContain('sandbox: stopped; drained 0 requests, cut 0');
    expect(await readFile(join(dir, 'db.json'), 'utf8')).toContain('kept in the container');
    expect(spawnSync(process.execPath, [join(ROOT, 'docker/healthcheck.mjs')], { env }).status).toBe(1);
  });
});

/** The one child of `parent`, read from /proc (unshare --fork runs the entry command as it). */
function childOf(parent: number): number {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // the fields after the command's closing parenthesis: state, then the parent pid
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === parent) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  return 0;
}

/** fetch cannot set Host: node:http can */
async function get(port: number, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return send(port, 'GET', path, headers);
}
async function post(port: number, path: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; body: string }> {
  return send(port, 'POST', path, { ...headers, 'content-type': 'application/json' }, JSON.stringify(body));
}
async function send(port: number, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; body: string }> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
