import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseAllowedIps, parseScopes } from '../../src/keys/api-key.js';
import { ipAllowed } from '../../src/keys/index.js';
import { IvoryError } from '../../src/platform/errors.js';

const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((octets) => octets.join('.'));
const ipv4Range = fc.tuple(ipv4, fc.integer({ min: 0, max: 32 })).map(([address, bits]) => `${address}/${bits}`);
const ipv6 = fc.ipV6();
const ipv6Range = fc.tuple(fc.ipV6(), fc.integer({ min: 0, max: 128 })).map(([address, bits]) => `${address}/${bits}`);
const entry = fc.oneof(ipv4, ipv4Range, ipv6, ipv6Range);

// SPEC "API key": allowed_ips are IPv4/IPv6 addresses or CIDR ranges, at most 10.
describe('allowed_ips normalisation', () => {
  it('is a fixed point: normalised entries normalise to themselves', () => {
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 10 }), (entries) => {
        const once = parseAllowedIps(entries);
        expect(parseAllowedIps(once)).toEqual(once);
      }),
    );
  });

  it('admits exactly the clients the entries as sent admit', () => {
    fc.assert(
      fc.property(fc.array(entry, { minLength: 1, maxLength: 10 }), fc.oneof(ipv4, ipv6), (entries, client) => {
        expect(ipAllowed(parseAllowedIps(entries), client)).toBe(ipAllowed(entries, client));
      }),
    );
  });

  it('refuses more than 10 entries before reading them', () => {
    // 'junk' would be invalid_allowed_ips at allowed_ips[0]: the count is checked first.
    expect(() => parseAllowedIps(Array.from({ length: 11 }, () => 'junk'))).toThrow(
      new IvoryError('too_many_allowed_ips', { field: 'allowed_ips', reason: 'must have at most 10 addresses or CIDR ranges (11 sent)' }),
    );
  });
});

describe('scopes', () => {
  it('accepts each non-empty set of read and write, in the order sent', () => {
    expect(parseScopes(['read'])).toEqual(['read']);
    expect(parseScopes(['write', 'read'])).toEqual(['write', 'read']);
  });
  it('refuses empty, unknown and repeated scopes', () => {
    for (const scopes of [[], ['admin'], ['read', 'read'], ['read', 'Write']]) {
      expect(() => parseScopes(scopes), JSON.stringify(scopes)).toThrow(IvoryError);
    }
  });
});
