/**
 * The token endpoint's path relative to the issuer (`ENDPOINTS.token` of `metadata.ts`), apart so
 * that the client authentication methods, which `metadata.ts` lists, can name their expected
 * audience (RFC 7523 §3) without an import cycle.
 */
export const TOKEN_ENDPOINT_PATH = '/oauth2/v1/token';
