import { describe, expect, it } from 'vitest';
import { startOptions } from '../../src/cli/start.ts';
import { resolveOptions } from '../../src/config.ts';
import { crossOriginRefusal, formPostRefusal, hostnameOf, hostRefusal, isLoopbackHostname, normaliseAllowedHost } from '../../src/core/host-guard.ts';
import { runCliInProcess } from '../helpers/cli-in-process.ts';

/**
 * The pure rules of src/core/host-guard.ts: which Host names are served, which origins may drive
 * the control plane, and the wording of each refusal (what a developer reads to fix the request)
 * with its bounds. The socket-level proof is test/security/host-origin.test.ts.
 */
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

  it.each(['[1::2::3]', 'localhost:99999', '[::1]:70000'])('%s matches the pattern but is no host', (header) => {
    expect(hostnameOf(header)).toBeNull();
    expect(hostRefusal(header, { allowedHosts: [] })?.body.code).toBe('HOST_NOT_ALLOWED');
  });
});

describe('the Host refusal', () => {
  it('refuses another name in one line that names the flag, and lets an allowed one through', () => {
    const refusal = hostRefusal('attacker.example:4010', { allowedHosts: [] });
    expect(refusal?.statusCode).toBe(403);
    expect(refusal?.body).toEqual({ code: 'HOST_NOT_ALLOWED', error: expect.stringContaining('start it with --allowed-host attacker.example') });
    expect(hostRefusal('Proxy.Test.:8080', { allowedHosts: ['proxy.test'] })).toBeNull();
    expect(hostRefusal('a.b.example', { allowedHosts: ['.example'] })).toBeNull();
    expect(hostRefusal(undefined, { allowedHosts: [] })).toBeNull();
  });

  it('shows a host that is no host name as sent, cut at 100 characters, and asks for a <name>', () => {
    const header = `bad host ${'a'.repeat(200)}`;
    const error = hostRefusal(header, { allowedHosts: [] })!.body.error;
    expect(error).toContain(`this host (${JSON.stringify(header.slice(0, 100))}) is not allowed`);
    expect(error).not.toContain('a'.repeat(92));
    expect(error).toContain('start it with --allowed-host <name> (createSandbox option allowedHosts)');
  });

  it('shows a host name without its trailing dot', () => {
    expect(hostRefusal('Attacker.Example.:80', { allowedHosts: [] })!.body.error).toContain('this host ("attacker.example") is not allowed');
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

  it('an IPv6 literal is a host, not a host with a port', () => {
    expect(normaliseAllowedHost('[::1]')).toBe('[::1]');
    expect(normaliseAllowedHost('[fd00::12]')).toBe('[fd00::12]');
    expect(normaliseAllowedHost('[fd00::12]:8080')).toBeNull();
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

  // an --allowed-host name makes its Host reachable, and its own origin only
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
});

describe('the cross-origin refusal', () => {
  it('names the sandbox\'s own origin, or says "its own" when no Host was sent', () => {
    expect(crossOriginRefusal({ origin: 'http://attacker.example', host: '127.0.0.1:4010' })!.body.error).toBe(
      'Blocked cross-origin request: the control plane answers only its own origin (http://127.0.0.1:4010), and this one comes from "http://attacker.example"; a web page may not drive the sandbox. Use the CLI, the control client or curl; behind a proxy, have it forward the page\'s own Host (allowed with --allowed-host <name>)',
    );
    expect(crossOriginRefusal({ origin: 'http://attacker.example' })!.body.error).toContain('answers only its own origin (its own), and');
  });

  it('cuts the origin it shows at 200 characters', () => {
    const origin = `http://${'a'.repeat(300)}.example`;
    const error = crossOriginRefusal({ origin, host: '127.0.0.1:4010' })!.body.error;
    expect(error).toContain(`comes from ${JSON.stringify(origin.slice(0, 200))};`);
  });

  it('says which Sec-Fetch-Site was refused', () => {
    expect(crossOriginRefusal({ site: 'cross-site' })!.body.error).toBe(
      "Blocked cross-site request (Sec-Fetch-Site: cross-site): a web page may not drive the sandbox's control plane. Use the CLI, the control client or curl, or open the URL from the address bar",
    );
    expect(crossOriginRefusal({ site: 'same-site' })!.body.error).toContain('(Sec-Fetch-Site: same-site)');
  });

  it('an origin is never its own without a Host to compare it with, nor with a Host that is no host', () => {
    expect(crossOriginRefusal({ origin: 'http://undefined' })?.body.code).toBe('CROSS_ORIGIN_REFUSED');
    expect(crossOriginRefusal({ origin: 'http://localhost', host: 'a b' })?.body.code).toBe('CROSS_ORIGIN_REFUSED');
    expect(crossOriginRefusal({ origin: 'http://localhost', host: 'localhost:99999' })?.body.code).toBe('CROSS_ORIGIN_REFUSED');
  });
});

describe('the form POST refusal', () => {
  it('wants application/json on a POST only, and says what to send', () => {
    expect(formPostRefusal('POST', 'application/json; charset=utf-8', 'u')).toBeNull();
    expect(formPostRefusal('DELETE', undefined, 'u')).toBeNull();
    const refusal = formPostRefusal('POST', 'text/plain', 'http://127.0.0.1:4010/__sandbox/reset');
    expect(refusal?.statusCode).toBe(415);
    expect(refusal?.body.error).toContain("curl -X POST -H 'content-type: application/json' http://127.0.0.1:4010/__sandbox/reset");
  });

  it('reads the media type in any case, around spaces and parameters', () => {
    for (const type of ['Application/JSON', ' application/json ', 'APPLICATION/JSON ; charset=utf-8']) {
      expect(formPostRefusal('POST', type, 'u'), type).toBeNull();
    }
  });

  it('names the type it refused, cut at 100 characters, or says there was none', () => {
    const type = `text/plain; ${'x'.repeat(200)}`;
    expect(formPostRefusal('POST', type, 'http://h/p')!.body.error).toMatch(
      new RegExp(
        `^Unsupported Content-Type ${JSON.stringify(type.slice(0, 100)).replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: a control-plane POST must be sent with Content-Type: application/json`,
      ),
    );
    expect(formPostRefusal('POST', undefined, 'http://h/p')!.body.error).toBe(
      "No Content-Type: a control-plane POST must be sent with Content-Type: application/json, even with no body (so that no web page can send it), e.g. curl -X POST -H 'content-type: application/json' http://h/p",
    );
    expect(formPostRefusal('POST', '', 'http://h/p')!.body.error).toMatch(/^No Content-Type: /);
  });
});
