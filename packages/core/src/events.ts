/** A security-relevant event. Carries identifiers, never a secret, token, code or password. */
export type GatehouseEvent =
  | { readonly type: 'login.succeeded'; readonly userId: string; readonly via: 'login-page' | 'auth-api' }
  | { readonly type: 'login.failed'; readonly username: string; readonly via: 'login-page' | 'auth-api' }
  | {
      readonly type: 'login.rate_limited';
      readonly username: string;
      readonly via: 'login-page' | 'auth-api';
    }
  | {
      readonly type: 'token.issued';
      readonly clientId?: string;
      readonly userId: string;
      readonly grantType: string;
    }
  | {
      readonly type: 'token.revoked';
      readonly clientId?: string;
      readonly kind: 'access_token' | 'refresh_token';
    }
  | { readonly type: 'code.replayed'; readonly clientId: string; readonly grantId: string }
  | { readonly type: 'refresh_token.reused'; readonly clientId: string; readonly grantId: string }
  | { readonly type: 'session.ended'; readonly userId: string };

/** Where Gatehouse writes diagnostics. `console` fits. */
export interface Logger {
  warn(message: string, ...details: unknown[]): void;
  error(message: string, ...details: unknown[]): void;
}
