import { describe, expect, it } from 'vitest';
import { parseOidcParameters } from './authorization-parameters';
import { type InteractionState, nextInteraction } from './interaction';

const NOW = Date.UTC(2026, 0, 1);
const session = { userId: 'user-1', authTime: NOW - 600_000 };

function decide(parameters: Record<string, string>, state: Partial<InteractionState> = {}) {
  try {
    return nextInteraction({
      oidc: parseOidcParameters(parameters),
      session,
      consentNeeded: false,
      now: NOW,
      ...state,
    });
  } catch (error) {
    return (error as { code: string }).code;
  }
}

describe('the next step of an authorization request', () => {
  it('logs in without a session, issues with one', () => {
    expect(decide({}, { session: null })).toBe('login');
    expect(decide({})).toBe('issue');
  });

  it('prompt=login and max_age force a new login; a recent enough one is kept', () => {
    expect(decide({ prompt: 'login' })).toBe('login');
    expect(decide({ max_age: '0' })).toBe('login');
    expect(decide({ max_age: '0' }, { session: { userId: 'user-1', authTime: NOW } })).toBe('login');
    expect(decide({ max_age: '599' })).toBe('login');
    expect(decide({ max_age: '600' })).toBe('issue');
  });

  it('asks for consent when needed, or always with prompt=consent', () => {
    expect(decide({}, { consentNeeded: true })).toBe('consent');
    expect(decide({ prompt: 'consent' })).toBe('consent');
    expect(decide({ prompt: 'login consent' })).toBe('login');
  });

  it('an id_token_hint of another user needs a login as that user', () => {
    expect(decide({}, { hintSubject: 'user-2' })).toBe('login');
    expect(decide({}, { hintSubject: 'user-1' })).toBe('issue');
  });

  it('prompt=none answers login_required or consent_required instead of a page', () => {
    expect(decide({ prompt: 'none' }, { session: null })).toBe('login_required');
    expect(decide({ prompt: 'none', max_age: '60' })).toBe('login_required');
    expect(decide({ prompt: 'none' }, { hintSubject: 'user-2' })).toBe('login_required');
    expect(decide({ prompt: 'none' }, { consentNeeded: true })).toBe('consent_required');
    expect(decide({ prompt: 'none' })).toBe('issue');
  });
});
