import { describe, expect, it } from 'vitest';
import { clientNetwork, networkAggregate } from './client-network.js';

describe('client networks and their aggregates', () => {
  it.each([
    ['192.0.2.17', '192.0.2.17', '192.0.2.0/24'],
    ['::ffff:192.0.2.17', '192.0.2.17', '192.0.2.0/24'],
    ['[::ffff:c000:211]', '192.0.2.17', '192.0.2.0/24'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64', '2001:db8:1::/48'],
    ['[2001:db8:1:2::9]', '2001:db8:1:2::/64', '2001:db8:1::/48'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64', 'fe80:0:0::/48'],
    ['2001:db8::', '2001:db8:0:0::/64', '2001:db8:0::/48'],
  ])('count %s as network %s in aggregate %s', (address, network, aggregate) => {
    expect(clientNetwork(address)).toBe(network);
    expect(networkAggregate(address)).toBe(aggregate);
  });

  it('count text that is no IP address as its own network and aggregate', () => {
    for (const text of ['client-7', '999.1.1.1', 'not:an:address::x'])
      expect([clientNetwork(text), networkAggregate(text)]).toEqual([text, text]);
  });

  it('put the networks of one /24 or one /48 in one aggregate, and others apart', () => {
    expect(networkAggregate('198.51.100.1')).toBe(networkAggregate('198.51.100.254'));
    expect(networkAggregate('198.51.100.1')).not.toBe(networkAggregate('198.51.101.1'));
    expect(networkAggregate('2001:db8:5:1::1')).toBe(networkAggregate('2001:db8:5:ffff::1'));
    expect(networkAggregate('2001:db8:5::1')).not.toBe(networkAggregate('2001:db8:6::1'));
  });
});
