import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlClient } from '../../src/control/client.ts';
import { runCli } from '../helpers/cli.ts';
import { KEYS } from '../helpers/sandbox.ts';
import { BROWSER_TEST_TIMEOUT, HAS_CHROMIUM, launchInspectorBrowser, type InspectorBrowser } from '../inspector/browser.ts';
import { startReceiver, type Receiver } from '../webhooks/receiver.ts';
import { startSandbox, type StartedSandbox } from './start.ts';

/**
 * One default workspace from every door (docs/cli.md, "The default workspace"): `sandbox start`
 * as a user runs it, the CLI's commands against it without --workspace, and the inspector in
 * Chromium. The default is the workspace of the README's key, Borealis (sandbox mode);
 * `--default-workspace` or $SANDBOX_WORKSPACE moves it, for the sandbox or for one command.
 */
const AURORA = { id: 'wksp_78e8f0e4-5738-4004-985e-f7629c6e1efc', name: 'Aurora Tours' };
const BOREALIS = { id: 'wksp_7986af38-8b17-43d3-af5f-12e0889b41e7', name: 'Borealis Adventures (sandbox)' };
/** the departure the README books: 14 seats, 8 left in the fixtures */
const DEPARTURE = 'dept_5b78b736-b475-4c84-867e-1b9b3be56fac';

let chrome: InspectorBrowser | undefined;
beforeAll(async () => {
  if (HAS_CHROMIUM) chrome = await launchInspectorBrowser();
}, 90_000);
afterAll(() => chrome?.close());

type Listed = { id: string; name: string; default: boolean; keys: { id: string }[] }[];
async function workspaces(url: string): Promise<Listed> {
  return ((await (await fetch(`${url}/__sandbox/workspaces`)).json()) as { data: Listed }).data;
}
const defaults = async (url: string) => (await workspaces(url)).filter((w) => w.default).map((w) => w.name);

async function book(url: string, adults: number): Promise<string> {
  const res = await fetch(`${url}/v1/bookings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEYS.sandboxFull}`, 'content-type': 'application/json' },
    body: JSON.stringify({ departureId: DEPARTURE, adults }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { data: { id: string } }).data.id;
}

describe("journey: without --workspace, every door works in the README key's workspace", () => {
  let sandbox: StartedSandbox;
  let receiver: Receiver;
  beforeAll(async () => {
    sandbox = await startSandbox(['--no-rate-limits']);
    receiver = await startReceiver();
  }, 90_000);
  afterAll(async () => {
    await sandbox?.stop();
    await receiver?.close();
  });
  const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { SANDBOX_URL: sandbox.url, ...env }).exit;

  it('the banner names it, and the control plane marks it', async () => {
    expect(sandbox.banner).toMatch(/^ {2}default {8}Borealis Adventures \(sandbox\) {2}where commands, MCP tools and the inspector work unless told/m);
    expect(await defaults(sandbox.url)).toEqual([BOREALIS.name]);
  });

  it('keys create makes its key there; SANDBOX_WORKSPACE names another for one command, or is refused in one line', async () => {
    const created = await cli(['keys', 'create', '--name', 't']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^Created t (wkey_\S+) in Borealis Adventures \(sandbox\) \(full access\):\n {2}tcs_test_\w+\n/);
    const id = /^Created t (wkey_\S+)/.exec(created.stdout)![1]!;
    expect((await workspaces(sandbox.url)).find((w) => w.id === BOREALIS.id)!.keys.map((k) => k.id)).toContain(id);

    const elsewhere = await cli(['keys', 'create', '--name', 't2', '--json'], { SANDBOX_WORKSPACE: 'aurora' });
    expect(elsewhere.code, elsewhere.stderr).toBe(0);
    expect(JSON.parse(elsewhere.stdout)).toMatchObject({ workspaceId: AURORA.id, key: expect.stringMatching(/^tcs_live_/) });
    const flagWins = await cli(['keys', 'create', '--name', 't3', '--workspace', 'borealis', '--json'], { SANDBOX_WORKSPACE: 'aurora' });
    expect(JSON.parse(flagWins.stdout)).toMatchObject({ workspaceId: BOREALIS.id });

    const unknown = await cli(['keys', 'create'], { SANDBOX_WORKSPACE: 'Atlantis' });
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe(
      `sandbox: SANDBOX_WORKSPACE="Atlantis" names no workspace; known: ${AURORA.name} (${AURORA.id}), ${BOREALIS.name} (${BOREALIS.id})\n`,
    );
  });

  it('data departures shows the seats left, which a booking takes, in its table and its --json', async () => {
    await book(sandbox.url, 2);
    const table = await cli(['data', 'departures', '--limit', '1']);
    expect(table.code, table.stderr).toBe(0);
    const [header, row] = table.stdout.split('\n');
    expect(header).toMatch(/^ID\s+STATUS\s+STARTDATE\s+SEATS LEFT\s+PRODUCTID$/);
    expect(row).toMatch(new RegExp(`^${DEPARTURE}\\s+\\w+\\s+\\d{4}-\\d{2}-\\d{2}\\s+6 of 14\\s+prod_`));
    const page = JSON.parse((await cli(['data', 'departures', '--limit', '1', '--json'])).stdout) as { rows: object[] };
    expect(page.rows[0]).toMatchObject({ id: DEPARTURE, seatsLeft: 6, capacity: 14 });
  });

  it.skipIf(!HAS_CHROMIUM)('the inspector opens on it: the picker, the Data view and the Webhooks view', { timeout: BROWSER_TEST_TIMEOUT }, async () => {
    // trigger without --workspace sends its event there too, to a subscription of that workspace
    await new ControlClient({ url: sandbox.url }).ensureSubscription({ workspaceId: BOREALIS.id, url: receiver.url, events: ['booking.created'] });
    const triggered = await cli(['trigger', 'booking.created', '--json']);
    expect(triggered.code, triggered.stderr).toBe(0);
    expect(JSON.parse(triggered.stdout)).toMatchObject({ event: { workspaceId: BOREALIS.id }, deliveryIds: [expect.any(String)] });
    const booking = await book(sandbox.url, 1);

    const { page, errors } = await chrome!.open(`${sandbox.url}/__sandbox/ui/`);
    const picker = page.getByLabel('Workspace', { exact: true });
    await expect.poll(() => picker.inputValue(), { timeout: 20_000 }).toBe(BOREALIS.id);

    await page.goto(`${sandbox.url}/__sandbox/ui/data/bookings`);
    const records = page.getByRole('table', { name: 'bookings records' });
    await expect.poll(() => records.locator('tbody tr').first().locator('td').first().textContent(), { timeout: 20_000 }).toBe(booking);

    await page.goto(`${sandbox.url}/__sandbox/ui/webhooks`);
    const deliveries = page.getByRole('table', { name: 'Deliveries' });
    await expect.poll(() => deliveries.locator('tbody tr').first().textContent(), { timeout: 20_000 }).toContain('booking.created');
    expect(await deliveries.textContent()).not.toContain('no delivery matches');
    expect(errors).toEqual([]);
    await page.close();
  });
});

describe('journey: SANDBOX_WORKSPACE or --default-workspace moves the default of a sandbox', () => {
  let sandbox: StartedSandbox;
  beforeAll(async () => {
    sandbox = await startSandbox([], { SANDBOX_WORKSPACE: AURORA.name });
  }, 90_000);
  afterAll(() => sandbox?.stop());

  it('the banner, the control plane, the CLI and the inspector all name Aurora', { timeout: BROWSER_TEST_TIMEOUT }, async () => {
    expect(sandbox.banner).toMatch(/^ {2}default {8}Aurora Tours {2}/m);
    expect(await defaults(sandbox.url)).toEqual([AURORA.name]);
    const created = await runCli(['keys', 'create', '--name', 't', '--json'], { SANDBOX_URL: sandbox.url }).exit;
    expect(JSON.parse(created.stdout)).toMatchObject({ workspaceId: AURORA.id, key: expect.stringMatching(/^tcs_live_/) });
    if (!chrome) return;
    const { page } = await chrome.open(`${sandbox.url}/__sandbox/ui/`);
    await expect.poll(() => page.getByLabel('Workspace', { exact: true }).inputValue(), { timeout: 20_000 }).toBe(AURORA.id);
    await page.close();
  });

  it("sandbox exec hands out the default workspace's full-access key, and --key the other mode's", async () => {
    const printKey = ['--', process.execPath, '-e', 'console.log(process.env.SANDBOX_API_KEY, process.env.SANDBOX_WORKSPACE_ID)'];
    const keyOf = async (args: string[]) => (await runCli(['exec', ...args, ...printKey]).exit).stdout.split('\n')[0];
    expect(await keyOf([])).toBe(`${KEYS.sandboxFull} ${BOREALIS.id}`);
    expect(await keyOf(['--default-workspace', 'aurora'])).toBe(`${KEYS.liveFull} ${AURORA.id}`);
    expect(await keyOf(['--default-workspace', 'aurora', '--key', 'sandbox'])).toBe(`${KEYS.sandboxFull} ${BOREALIS.id}`);
  }, 90_000);

  it('the --json ready line marks it; a name that is no workspace stops the start in one line', async () => {
    const ready = runCli(['start', '--port', '0', '--in-memory', '--json', '--default-workspace', AURORA.id]);
    const line = JSON.parse(await ready.firstLine) as { workspaces: { id: string; default: boolean }[] };
    ready.child.kill('SIGINT');
    await ready.exit;
    expect(line.workspaces.map((w) => [w.id, w.default])).toEqual([
      [AURORA.id, true],
      [BOREALIS.id, false],
    ]);

    const refused = await runCli(['start', '--port', '0', '--in-memory', '--default-workspace', 'atlantis']).exit;
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toBe(
      `sandbox: Cannot make "atlantis" the default workspace: it names no workspace; known: ${AURORA.name} (${AURORA.id}), ${BOREALIS.name} (${BOREALIS.id}); name one of them with --default-workspace (or $SANDBOX_WORKSPACE)\n`,
    );
  }, 90_000);
});
