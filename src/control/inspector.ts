import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyReply } from 'fastify';
import type { SandboxContext } from '../context.ts';
import type { ZodApp } from '../resources/types.ts';

/**
 * The browser inspector's files (docs/inspector.md): the page
 * bundled by scripts/build-inspector.mjs into dist/inspector/, served under
 * /__sandbox/ui/. Static files hold no data, so they pass without the control
 * token (the page then sends it from its #fragment; src/http/control-scope.ts);
 * the Host and cross-site rules apply to them as to every control route.
 * Every other path under ui/ is the page itself (its views have paths of
 * their own, so a deep link or a reload works).
 */
export const INSPECTOR_PATH = '/ui/';

/**
 * The page may load only what the sandbox serves: no inline script, no CDN,
 * no frame around it (clickjacking the Reset button), no form posted away.
 */
export const INSPECTOR_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** dist/inspector, from wherever this module runs: dist/cli.cjs, dist/chunks/*.js, or src/control (tests, tsx). */
export function inspectorDirectory(): string | null {
  const here = fileURLToPath(new URL('.', import.meta.url));
  for (const candidate of ['inspector', '../inspector', '../../dist/inspector']) {
    const dir = join(here, candidate);
    if (existsSync(join(dir, 'assets', 'main.js'))) return dir;
  }
  return null;
}

export function registerInspectorRoutes(app: ZodApp, _ctx: SandboxContext): void {
  const dir = inspectorDirectory();
  const files = new Map<string, Promise<Buffer>>();
  const read = (relative: string): Promise<Buffer> => {
    let file = files.get(relative);
    if (!file) {
      file = readFile(join(dir!, relative));
      file.catch(() => files.delete(relative));
      files.set(relative, file);
    }
    return file;
  };

  const send = async (reply: FastifyReply, relative: string) => {
    const body = await read(relative);
    return reply
      .header('content-type', TYPES[extname(relative)] ?? 'application/octet-stream')
      .header('content-security-policy', INSPECTOR_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', relative === 'index.html' ? 'no-cache' : 'max-age=300')
      .send(body);
  };

  const config = { hidden: true };
  const notBuilt = (reply: FastifyReply) =>
    reply.code(503).type('text/plain; charset=utf-8').send("The inspector is not built: run `npm run build` in the sandbox's folder.\n");
  // `/ui` and `/ui/` are one route (ignoreTrailingSlash); the page wants the slash, as its URL in the banner has
  app.get('/ui', { config }, async (request, reply) => {
    if (!request.url.split('?')[0]!.endsWith('/')) return reply.redirect('/__sandbox/ui/', 302);
    return dir ? send(reply, 'index.html') : notBuilt(reply);
  });
  app.get('/ui/*', { config }, async (request, reply) => {
    if (!dir) return notBuilt(reply);
    const wanted = (request.params as { '*': string })['*'];
    if (wanted.startsWith('assets/')) {
      const relative = normalize(wanted);
      if (relative.split(sep).includes('..') || !existsSync(join(dir, relative))) {
        return reply.code(404).type('text/plain; charset=utf-8').send('Not found\n');
      }
      return send(reply, relative);
    }
    return send(reply, 'index.html');
  });
}
