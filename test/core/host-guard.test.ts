import { describe, expect, it } from 'vitest';
import { startOptions } from '../../src/cli/start.ts';
import { resolveOptions } from '../../src/config.ts';
import { crossOriginRefusal, formPostRefusal, hostnameOf, hostRefusal, isLoopbackHostname, normaliseAllowedHost } from '../../src/core/host-guard.ts';
import { runCliInProcess } from '../helpers/cli-in-process.ts';

/** The pure rules of src/core/host-guard.ts (issue 23); the socket-level proof is test/security/host-origin.test.ts. */
describe('host names', () => {
  it.each([
    ['LOCALHOST:4010', 'localhost'],
    ['localhost.', 'localhost.'],
    ['127.1', '127.0.0.1'],
    ['[0:0:0:0:0:0:0:1]:80', '[::1]'],
    ['x@127.0.0.1', null],
    ['a/b', null],
    ['a b', null],
    ['', null],
  ])('%j is the host name %j', (header, hostname) => {
    expect(hostnameOf(header)).toBe(hostname);
  });

  it.each(['localhost', 'localhost.', 'app.localhost', '127.0.0.1', '127.255.0.9', '[::1]', '[::ffff:7f00:1]'])('%s is loopback', (name) => {
    expect(isLoopbackHostname(name)).toBe(true);
  });

  it.each(['localhost.attacker.example', '127.0.0.1.attacker.example', 'attacker.example', '0.0.0.0', '[::]', '10.0.0.1', 'localhostx'])(
    '%s is not',
    (name) => {
      expect(isLoopbackHostname(name)).toBe(false);
    },
  );

  it('refuses another name in one line that names the flag, and lets an allowed one through', () => {
    const refusal = hostRefusal('attacker.example:4010', { allowedHosts: [] });
    expect(refusal?.statusCode).toBe(403);
    expect(refusal?.body).toEqual({ code: 'HOST_NOT_ALLOWED', error: expect.stringContaining('start it with --allowed-host attacker.example') });
    expect(hostRefusal('Proxy.Test.:8080', { allowedHosts: ['proxy.test'] })).toBeNull();
    expect(hostRefusal('a.b.example', { allowedHosts: ['.example'] })).toBeNull();
    expect(hostRefusal(undefined, { allowedHosts: [] })).toBeNull();
  });
});

describe('--allowed-host and allowedHosts', () => {
  it('keep a name or an IP address, lowercased, and refuse a scheme, a port or a path', () => {
    expect(normaliseAllowedHost('Proxy.Test.')).toBe('proxy.test');
    expect(normaliseAllowedHost('.Dev.Test')).toBe('.dev.test');
    for (const bad of ['http://proxy.test', 'proxy.test:8080', 'proxy.test/x', '']) expect(normaliseAllowedHost(bad), bad).toBeNull();
    expect(resolveOptions({ allowedHosts: ['Sandbox.Internal'] }).allowedHosts).toEqual(['sandbox.internal']);
    expect(() => resolveOptions({ allowedHosts: ['sandbox:4010'] })).toThrow(/^Invalid sandbox option allowedHosts\.0: an allowed host is a host name/);
  });

  it('is a repeatable CLI flag, checked as it is parsed', async () => {
    expect(startOptions({ port: 0, host: '127.0.0.1', data: '', clock: 'real', rateLimits: true, allowedHost: ['a.test', 'b.test'] }).allowedHosts).toEqual([
      'a.test',
      'b.test',
    ]);
    const bad = await runCliInProcess(['start', '--in-memory', '--allowed-host', 'http://a.test']);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--allowed-host takes a host name or IP address without scheme or port');
  });
});

describe("the control plane's origin rules", () => {
  it.each([
    [{ origin: 'http://127.0.0.1:4010', host: '127.0.0.1:4010' }, null],
    [{ origin: 'http://localhost', host: 'localhost:80' }, null],
    [{ origin: 'http://127.0.0.1:4010', host: '127.1:4010' }, null],
    [{ origin: 'http://localhost:4010', host: 'LOCALHOST:4010' }, null],
    [{ origin: 'http://[::1]:4010', host: '[0:0:0:0:0:0:0:1]:4010' }, null],
    [{ origin: 'http://proxy.test', host: 'proxy.test' }, null],
    [{ origin: 'http://devbox:4010', host: 'devbox:4010' }, null],
    [{ origin: 'http://a.example.test:4010', host: 'A.Example.Test:4010' }, null],
    [{ site: 'same-origin' }, null],
    [{ site: 'none' }, null],
    [{}, null],
    [{ origin: 'https://127.0.0.1:4010', host: '127.0.0.1:4010' }, 'CROSS_ORIGIN_REFUSED'],
    [{ origin: 'http://localhost:4010', host: '127.0.0.1:4010' }, 'CROSS_ORIGIN_REFUSED'],
    [{ origin: 'http://127.0.0.1:4010', host: 'localhost:4010' }, 'CROSS_ORIGIN_REFUSED'],
    [{ origin: 'http://[::1]:4010', host: '127.0.0.1:4010' }, 'CROSS_ORIGIN_REFUSED'],
    [{ origin: 'http://localhost:4011', host: 'localhost:4010' }, 'CROSS_ORIGIN_REFUSED'],
    [{ origin: 'null', host: '127.0.0.1:4010' }, 'CROSS_ORIGIN_REFUSED'],
    [{ origin: 'http://127.0.0.1:4010' }, 'CROSS_ORIGIN_REFUSED'],
    [{ site: 'cross-site' }, 'CROSS_ORIGIN_REFUSED'],
    [{ site: 'same-site' }, 'CROSS_ORIGIN_REFUSED'],
    [{ origin: 'http://localhost:4011', host: 'localhost:4010', site: 'same-site' }, 'CROSS_ORIGIN_REFUSED'],
    [{ origin: 'http://localhost:4010', host: 'localhost:4010', site: 'same-site' }, null],
  ])('%j -> %s', (headers, code) => {
    expect(crossOriginRefusal(headers)?.body.code ?? null).toBe(code);
  });

  // issue 34: an --allowed-host name makes its Host reachable, and its own origin only
  it.each([
    [{ origin: 'http://devbox:9999', host: 'devbox:4010' }, 'another port of an allowed host'],
    [{ origin: 'http://devbox', host: 'devbox:4010' }, 'the default port of an allowed host'],
    [{ origin: 'https://devbox:4010', host: 'devbox:4010' }, 'https: the sandbox serves http only'],
    [{ origin: 'https://proxy.test', host: 'proxy.test' }, 'https on the default ports: 443 is not 80'],
    [{ origin: 'http://b.example.test:4010', host: 'a.example.test:4010' }, 'a sibling under a .name rule'],
    [{ origin: 'http://example.test:4010', host: 'a.example.test:4010' }, 'the parent of a .name rule'],
    [{ origin: 'http://devbox:4010', host: '127.0.0.1:4010' }, 'an allowed name sent to a loopback Host'],
  ])('%j is another origin (%s)', (headers) => {
    expect(hostRefusal(headers.host, { allowedHosts: ['devbox', '.example.test', 'proxy.test'] })).toBeNull();
    expect(crossOriginRefusal(headers)?.body.code).toBe('CROSS_ORIGIN_REFUSED');
  });

  it('wants application/json on a POST only, and says what to send', () => {
    expect(formPostRefusal('POST', 'application/json; charset=utf-8', 'u')).toBeNull();
    expect(formPostRefusal('DELETE', undefined, 'u')).toBeNull();
    const refusal = formPostRefusal('POST', 'text/plain', 'http://127.0.0.1:4010/__sandbox/reset');
    expect(refusal?.statusCode).toBe(415);
    expect(refusal?.body.error).toContain("curl -X POST -H 'content-type: application/json' http://127.0.0.1:4010/__sandbox/reset");
  });
});
