import { describe, expect, it } from 'vitest';
import { refusedUrlReason } from './guarded-fetch.js';
import { refusedAddressReason } from './ip-address.js';

const strict = { allowLoopback: false };
const loopbackAllowed = { allowLoopback: true };

describe('outbound address policy', () => {
  it.each([
    ['8.8.8.8'],
    ['93.184.215.14'],
    ['172.32.0.1'],
    ['2606:4700:4700::1111'],
    ['[2a00:1450:4001:80b::200e]'],
  ])('allows the public unicast address %s', (address) => {
    expect(refusedAddressReason(address, strict)).toBeUndefined();
  });

  it.each([
    ['127.0.0.1', /loopback/],
    ['::1', /loopback/],
    ['10.0.0.1', /private/],
    ['172.16.5.4', /private/],
    ['172.31.255.255', /private/],
    ['192.168.1.1', /private/],
    ['169.254.169.254', /link-local/],
    ['100.64.0.1', /shared/],
    ['0.0.0.0', /unspecified/],
    ['224.0.0.1', /multicast/],
    ['255.255.255.255', /multicast or reserved/],
    ['192.0.2.1', /special-purpose/],
    ['192.88.99.1', /special-purpose/],
    ['::', /not a global unicast/],
    ['fd12:3456::1', /unique-local/],
    ['fe80::1%eth0', /link-local/],
    ['ff02::1', /not a global unicast/],
    ['::ffff:10.0.0.1', /private/],
    ['::ffff:127.0.0.1', /loopback/],
    ['64:ff9b::a9fe:a9fe', /link-local/],
    ['2002:a00:1::1', /tunnel/],
    ['2001:0:4136:e378::1', /tunnel/],
    ['2001:db8::1', /documentation/],
    ['not-an-address', /not an IP address/],
  ])('refuses %s', (address, reason) => {
    expect(refusedAddressReason(address, strict)).toMatch(reason);
  });

  it('lets loopback through only when allowed, and nothing else with it', () => {
    expect(refusedAddressReason('127.0.0.1', loopbackAllowed)).toBeUndefined();
    expect(refusedAddressReason('::1', loopbackAllowed)).toBeUndefined();
    expect(refusedAddressReason('10.0.0.1', loopbackAllowed)).toMatch(/private/);
  });

  it('lets any address through for a URL the host configured, never plain http beyond loopback', () => {
    const configured = { allowLoopback: true, allowAnyAddress: true };
    for (const address of ['10.0.0.1', '192.168.1.5', 'fd00::1', '169.254.1.1', '127.0.0.1'])
      expect(refusedAddressReason(address, configured)).toBeUndefined();
    expect(refusedAddressReason('not-an-address', configured)).toMatch(/not an IP address/);
    expect(refusedUrlReason(new URL('https://10.0.0.1/introspect'), configured)).toBeUndefined();
    expect(refusedUrlReason(new URL('http://10.0.0.1/introspect'), configured)).toMatch(/not https/);
  });

  it('checks URLs before any request: https, no credentials, IP literals in every spelling the URL parser accepts', () => {
    const reason = (url: string, policy = strict) => refusedUrlReason(new URL(url), policy);
    expect(reason('https://app.example/client.json')).toBeUndefined();
    expect(reason('http://app.example/client.json')).toMatch(/not https/);
    expect(reason('ftp://app.example/client.json')).toMatch(/not https/);
    expect(reason('https://user:pw@app.example/')).toMatch(/credentials/);
    for (const spelling of [
      'https://127.1/',
      'https://0x7f000001/',
      'https://2130706433/',
      'https://[::ffff:7f00:1]/',
    ])
      expect(reason(spelling)).toMatch(/loopback/);
    expect(reason('https://localhost/')).toMatch(/loopback/);
    expect(reason('https://keys.localhost/')).toMatch(/loopback/);
    expect(reason('http://localhost:8080/client.json', loopbackAllowed)).toBeUndefined();
    expect(reason('http://127.0.0.1:8080/client.json', loopbackAllowed)).toBeUndefined();
    expect(reason('http://10.0.0.1/client.json', loopbackAllowed)).toMatch(/not https/);
  });
});
