import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.ts';
import { KEYS } from '../helpers/sandbox.ts';
import { runCli } from '../helpers/cli.ts';
import { openStream } from '../helpers/sse.ts';

/** `sandbox start --strict` refuses guesses; the SSE stream carries warnings (real sockets). */
const form = { name: 'Strict', fields: [], colour: 'red' };
const post = (url: string) =>
  fetch(`${url}/v1/forms`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEYS.liveFull}`, 'content-type': 'application/json' },
    body: JSON.stringify(form),
  });

describe('sandbox start --strict', () => {
  it('answers 400 VALIDATION_400 where it would otherwise warn', async () => {
    const run = runCli(['start', '--in-memory', '--port', '0', '--json', '--strict']);
    try {
      const { url } = JSON.parse(await run.firstLine) as { url: string };
      const res = await post(url);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ code: 'VALIDATION_400', details: [{ message: expect.stringMatching(/^UNKNOWN_FIELD: ignored body\.colour/) }] });
      expect(res.headers.get('x-sandbox-warning')).toMatch(/^UNKNOWN_FIELD/);
    } finally {
      run.child.kill('SIGTERM');
      await run.exit;
    }
  });
});

describe('the SSE stream', () => {
  let sandbox: Sandbox | undefined;
  afterEach(() => sandbox?.stop());

  it("carries a request's warnings on its request event", async () => {
    sandbox = await createSandbox({ port: 0, clock: 'manual' });
    const stream = await openStream(sandbox.controlUrl);
    await stream.readUntil('event: hello');
    const created = await post(sandbox.url);
    expect(created.status).toBe(201);
    expect(created.headers.get('x-sandbox-warning')).toBe('UNKNOWN_FIELD: ignored body.colour: not a field of POST /v1/forms');
    await stream.readUntil('"warnings"');
    const line = stream.text.split('\n').find((l) => l.startsWith('data: ') && l.includes('"warnings"'))!;
    expect(JSON.parse(line.slice(6)).warnings).toEqual([{ code: 'UNKNOWN_FIELD', message: 'ignored body.colour: not a field of POST /v1/forms' }]);
    stream.close();
  });
});
