import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

const probe = `
const res = await fetch(process.env.SANDBOX_URL + '/v1/products?limit=1', { headers: { authorization: 'Bearer ' + process.env.SANDBOX_API_KEY } });
const health = await fetch(process.env.SANDBOX_CONTROL_URL + '/health');
console.log(JSON.stringify({ status: res.status, limit: res.headers.get('x-ratelimit-limit'), health: health.status, ws: process.env.SANDBOX_WORKSPACE_ID }));
process.exit(Number(process.env.EXIT_WITH ?? 0));
`;

describe('sandbox exec (CI)', () => {
  it('runs the command against a fresh sandbox with SANDBOX_URL, SANDBOX_API_KEY and SANDBOX_CONTROL_URL', async () => {
    const { code, stdout } = await runCli(['exec', '--', process.execPath, '--input-type=module', '-e', probe]).exit;
    expect(code).toBe(0);
    const seen = JSON.parse(stdout.trim().split('\n').pop()!);
    expect(seen).toMatchObject({ status: 200, limit: '100', health: 200 });
    expect(seen.ws).toMatch(/^wksp_/);
  });

  it('passes the command exit code through', async () => {
    const { code } = await runCli(['exec', '--', process.execPath, '--input-type=module', '-e', probe], { EXIT_WITH: '3' }).exit;
    expect(code).toBe(3);
  });

  it('--key live hands over the live workspace key', async () => {
    const { stdout } = await runCli(['exec', '--key', 'live', '--', process.execPath, '--input-type=module', '-e', probe]).exit;
    expect(JSON.parse(stdout.trim().split('\n').pop()!).limit).toBe('3000');
  });

  it('a command that does not exist exits 127 with one line', async () => {
    const { code, stderr } = await runCli(['exec', '--', 'definitely-not-a-command-xyz']).exit;
    expect(code).toBe(127);
    expect(stderr.trim()).toBe('sandbox: cannot run "definitely-not-a-command-xyz": command not found');
  });
});

describe('sandbox exec: the ids of the keys it hands out', () => {
  const keysProbe = `
const env = process.env;
const { data } = await (await fetch(env.SANDBOX_CONTROL_URL + '/workspaces')).json();
console.log(JSON.stringify({ id: env.SANDBOX_API_KEY_ID ?? null, key: env.SANDBOX_API_KEY, id1: env.SANDBOX_API_KEY_ID_1 ?? null, key1: env.SANDBOX_API_KEY_1, workspace1: env.SANDBOX_WORKSPACE_ID_1, workspaces: data }));
`;

  it('exports SANDBOX_API_KEY_ID, and SANDBOX_API_KEY_ID_<n> per worker: the ids GET /__sandbox/workspaces lists for those keys', async () => {
    const { code, stdout, stderr } = await runCli(['exec', '--workers', '1', '--', process.execPath, '--input-type=module', '-e', keysProbe]).exit;
    expect(code, stderr).toBe(0);
    type Listed = { id: string; keys: { id: string; key: string | null; keyPrefix: string }[] };
    const seen = JSON.parse(stdout.trim().split('\n').pop()!) as {
      id: string;
      key: string;
      id1: string;
      key1: string;
      workspace1: string;
      workspaces: Listed[];
    };
    const keys = seen.workspaces.flatMap((w) => w.keys.map((k) => ({ ...k, workspaceId: w.id })));
    expect(seen.id).toMatch(/^wkey_/);
    expect(keys.find((k) => k.id === seen.id)?.key).toBe(seen.key);
    // a created workspace's key is listed by its prefix alone (it is shown once, when created)
    const worker = keys.find((k) => k.id === seen.id1);
    expect(worker?.workspaceId).toBe(seen.workspace1);
    expect(seen.key1.startsWith(worker!.keyPrefix)).toBe(true);
  });
});
