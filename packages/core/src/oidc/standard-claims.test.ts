import { describe, expect, it } from 'vitest';
import { claimsForScope, SCOPE_CLAIMS } from './standard-claims';

const user = {
  name: 'Demo User',
  preferred_username: 'demo',
  email: 'demo@example.com',
  email_verified: true,
  phone_number: '+1 555 0100',
  address: { country: 'NZ' },
  employee_number: 42,
};

describe('standard claims by scope (Core section 5.4)', () => {
  it('releases only the claims of the scopes granted', () => {
    expect(claimsForScope(user, 'openid')).toEqual({});
    expect(claimsForScope(user, 'openid profile')).toEqual({ name: 'Demo User', preferred_username: 'demo' });
    expect(claimsForScope(user, 'openid email')).toEqual({ email: 'demo@example.com', email_verified: true });
    expect(claimsForScope(user, 'phone address')).toEqual({
      phone_number: '+1 555 0100',
      address: { country: 'NZ' },
    });
    expect(claimsForScope(user, 'tickets:read offline_access')).toEqual({});
  });

  it('never releases custom claims, sub, or claims the user does not have', () => {
    const all = claimsForScope({ ...user, sub: 'forged' }, 'openid profile email address phone');
    expect(all).not.toHaveProperty('employee_number');
    expect(all).not.toHaveProperty('sub');
    expect(all).not.toHaveProperty('picture');
    expect(claimsForScope(undefined, 'profile')).toEqual({});
  });

  it('maps the four scope values of the specification', () => {
    expect(Object.keys(SCOPE_CLAIMS)).toEqual(['profile', 'email', 'address', 'phone']);
    expect(SCOPE_CLAIMS.profile).toContain('updated_at');
    expect(SCOPE_CLAIMS.phone).toEqual(['phone_number', 'phone_number_verified']);
  });
});
