import { describe, expect, it } from 'vitest';
import { keyLayout } from './keys.js';

/** The part of a key Redis Cluster hashes: between the first `{` and the next `}`. */
const hashTag = (key: string) => key.slice(key.indexOf('{') + 1, key.indexOf('}', key.indexOf('{')));

describe('redis key layout v2', () => {
  const keys = keyLayout('gh', 'https://a.example/t');

  it('puts every key a grant script touches in the grant’s slot, and grants in different slots', () => {
    const tags = new Set([
      hashTag(keys.code('grant-1', 'c')),
      hashTag(keys.refreshToken('grant-1', 'r1')),
      hashTag(keys.refreshToken('grant-1', 'r2')),
      hashTag(keys.revokedGrant('grant-1')),
    ]);
    expect([...tags]).toEqual(['19:https://a.example/t:g:grant-1']);
    expect(hashTag(keys.revokedGrant('grant-2'))).not.toBe(hashTag(keys.revokedGrant('grant-1')));
  });

  it('spreads single-key records by their own names, not one slot per instance', () => {
    const tags = [
      keys.keyValue('session:s1'),
      keys.keyValue('session:s2'),
      keys.keyValue('rate:k'),
      keys.codePointer('c'),
      keys.keyValue('par:1'),
      keys.keyValue('par:2'),
    ].map(hashTag);
    expect(new Set(tags).size).toBe(6);
  });

  it('puts the whole client registry in one slot, whatever the client id, for its atomic scripts', () => {
    const tags = new Set(
      [
        keys.registeredClients,
        keys.registeredClient('c'),
        keys.registeredClient('a}b{'),
        keys.registryPartitions.owners,
        keys.registryPartitions.weights,
        `${keys.registryPartitions.base}p:net:x`,
        `${keys.registryPartitions.base}u:net:x`,
      ].map(hashTag),
    );
    expect([...tags]).toEqual(['19:https://a.example/t:clients']);
    expect(hashTag(keys.legacyRegisteredClient('c'))).toBe('19:https://a.example/t:client:c');
  });

  it('keeps a brace in a grant id from ending the hash tag early, and distinct ids distinct', () => {
    expect(hashTag(keys.revokedGrant('a}b'))).toBe('19:https://a.example/t:g:a%7Db');
    expect(keys.revokedGrant('a}b')).not.toBe(keys.revokedGrant('a%7Db'));
  });

  it('starts every key of an instance with its own pattern, never another instance’s', () => {
    const other = keyLayout('gh', 'https://a.example/t:1');
    const base = keys.pattern.slice(0, -1);
    for (const key of [
      keys.code('g', 'c'),
      keys.keyValue('session:s'),
      keys.registeredClient('c'),
      keys.keyValue('par:x'),
    ]) {
      expect(key.startsWith(base)).toBe(true);
    }
    expect(other.keyValue('session:s').startsWith(base)).toBe(false);
  });

  it('names contract v2’s state keys for the migration, and what follows their kind', () => {
    expect(keys.v2State.sessions).toBe('gh:{19:https://a.example/t:session:*');
    expect(keys.v2State.rest('gh:{19:https://a.example/t:rate:pw:user:x}', 'rate')).toBe('pw:user:x');
  });

  it('escapes glob characters of the instance id in the SCAN pattern', () => {
    expect(keyLayout('gh', 'http://[::1]:3000').pattern).toBe('gh:{17:http://\\[::1\\]:3000:*');
  });
});
