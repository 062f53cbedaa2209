#!/usr/bin/env node
// The baseline for `npm run bench`: a bare Fastify 5 server with no hooks, no
// auth and no schemas, serving the same JSON body as the sandbox's
// GET /v1/products. Plain JavaScript on purpose: it runs under `node` with no
// loader, so its spawn-to-first-response is the floor for any Fastify app.
//
//   node bench/bare-server.mjs --body <file.json> [--port 0]
//
// GET /parsed         returns the parsed object; Fastify serializes it on every
//                     request (JSON.stringify), as a plain route would
// GET /preserialized  sends the JSON text as read, as a cached route would
// Prints one JSON line {"url": ...} once listening; SIGTERM/SIGINT close it.
import Fastify from 'fastify';
import { readFileSync } from 'node:fs';

function flag(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1] : fallback;
}

const bodyFile = flag('body');
if (!bodyFile) {
  console.error('usage: node bench/bare-server.mjs --body <file.json> [--port 0]');
  process.exit(2);
}
const text = readFileSync(bodyFile, 'utf8');
const parsed = JSON.parse(text);

const app = Fastify({ logger: false });
app.get('/parsed', async () => parsed);
app.get('/preserialized', async (_request, reply) => reply.type('application/json').send(text));

const url = await app.listen({ port: Number(flag('port', '0')), host: '127.0.0.1' });
process.stdout.write(`${JSON.stringify({ url })}\n`);

const stop = () =>
  app.close().then(
    () => process.exit(0),
    () => process.exit(1),
  );
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
