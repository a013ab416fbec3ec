/** Paths of the Auth API, relative to the issuer. */
export const AUTH_API_ENDPOINTS = {
  token: '/auth/v1/token',
  introspection: '/auth/v1/token/introspect',
  revocation: '/auth/v1/token/revoke',
} as const;
