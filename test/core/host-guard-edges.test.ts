import { describe, expect, it } from 'vitest';
import { crossOriginRefusal, formPostRefusal, hostnameOf, hostRefusal, normaliseAllowedHost } from '../../src/core/host-guard.ts';

/**
 * The edges of src/core/host-guard.ts that issue 28's mutation run found
 * untested: values that pass the Host pattern but are no URL, the wording of
 * each refusal (what a developer reads to fix the request) and its bounds.
 */
describe('host names that match the pattern but are no host', () => {
  it.each(['[1::2::3]', 'localhost:99999', '[::1]:70000'])('%s is none', (header) => {
    expect(hostnameOf(header)).toBeNull();
    expect(hostRefusal(header, { allowedHosts: [] })?.body.code).toBe('HOST_NOT_ALLOWED');
  });
});

describe('--allowed-host', () => {
  it('an IPv6 literal is a host, not a host with a port', () => {
    expect(normaliseAllowedHost('[::1]')).toBe('[::1]');
    expect(normaliseAllowedHost('[fd00::12]')).toBe('[fd00::12]');
    expect(normaliseAllowedHost('[fd00::12]:8080')).toBeNull();
  });
});

describe('the Host refusal', () => {
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
