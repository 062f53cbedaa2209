import { createServer } from 'node:http';
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { KEYS } from '../helpers/sandbox.ts';
import { runCli } from '../helpers/cli.ts';

/**
 * Through the real bin (the esbuild bundle when it is fresh, as after
 * `npm install`): a subscription on a local receiver gets a signed delivery.
 * Guards the code paths that only the bundle exercises, such as lazily
 * loaded dependencies.
 */
describe('webhooks through the CLI-started sandbox', () => {
  it('delivers a signed event to a local receiver', async () => {
    const received: { headers: Record<string, string>; body: string }[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        received.push({ headers: req.headers as Record<string, string>, body });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const port = (receiver.address() as { port: number }).port;
    const run = runCli(['start', '--in-memory', '--port', '0', '--json']);
    try {
      const { url } = JSON.parse(await run.firstLine) as { url: string };
      const created = await fetch(`${url}/v1/webhooks/subscriptions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEYS.sandboxFull}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: `http://127.0.0.1:${port}/hook`, events: ['booking.*'] }),
      });
      expect(created.status).toBe(201);
      const { data } = (await created.json()) as { data: { secret: string } };
      const workspaces = (await (await fetch(`${url}/__sandbox/workspaces`)).json()) as { data: { id: string; mode: string }[] };
      const workspaceId = workspaces.data.find((w) => w.mode === 'sandbox')!.id;
      const emitted = await fetch(`${url}/__sandbox/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ workspaceId, type: 'booking.created' }),
      });
      expect(emitted.status).toBe(201);
      for (const end = Date.now() + 30_000; received.length === 0 && Date.now() < end; ) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(received).toHaveLength(1);
      const verified = new Webhook(data.secret).verify(received[0]!.body, received[0]!.headers) as { type: string };
      expect(verified.type).toBe('booking.created');
    } finally {
      run.child.kill('SIGTERM');
      await run.exit;
      receiver.close();
    }
  });
});
