import { ENDPOINTS } from '../oauth2/metadata.js';
import type { AdminOperation } from './operations.js';
import { SCHEMAS } from './schemas.js';

/** Where the admin API lives below the instance path. */
export const ADMIN_PREFIX = '/admin/v1';

const errorAnswer = (description: string, challenge = false) => ({
  description,
  ...(challenge
    ? {
        headers: {
          'WWW-Authenticate': {
            description: 'The Bearer (or DPoP) challenge (RFC 6750 §3, RFC 9449 §7.1).',
            schema: { type: 'string' },
          },
        },
      }
    : {}),
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
});

const ERRORS = {
  400: errorAnswer('A malformed request (`invalid_request`).'),
  401: errorAnswer('No token, or one this instance does not accept (`invalid_token`).', true),
  403: errorAnswer(
    'A token without the admin scope, a caller the host does not allow (`insufficient_scope`), or a cross-site request (`forbidden`).',
    true,
  ),
  404: errorAnswer('No such resource (`not_found`).'),
  409: errorAnswer('The resource cannot be changed here (`not_deletable`, `not_rotatable`).'),
} as const;

/**
 * The OpenAPI 3.1 document of the admin API, made from its route table (`operations.ts`): one
 * path item per path, one operation per method, path parameters from the `{name}` segments.
 * Tokens are the instance's own (the `oauth2` security scheme names its token endpoint).
 */
export function openApiDocument(
  operations: readonly AdminOperation[],
  issuer: string,
  scope: string,
): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const operation of operations) {
    const pathParameters = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((match) => ({
      name: match[1],
      in: 'path',
      required: true,
      schema: { type: 'string', minLength: 1 },
    }));
    const queryParameters = (operation.query ?? []).map((parameter) => ({
      name: parameter.name,
      in: 'query',
      description: parameter.description,
      required: parameter.required ?? false,
      schema: parameter.schema,
    }));
    const parameters = [...pathParameters, ...queryParameters];
    const success = operation.response
      ? { 200: { description: 'OK', content: { 'application/json': { schema: operation.response } } } }
      : { 204: { description: 'Done (no content).' } };
    const responses: Record<string, unknown> = {
      ...success,
      400: ERRORS[400],
      401: ERRORS[401],
      403: ERRORS[403],
    };
    for (const status of operation.errors ?? []) responses[status] = ERRORS[status];
    paths[operation.path] ??= {};
    paths[operation.path]![operation.method.toLowerCase()] = {
      operationId: operation.operationId,
      summary: operation.summary,
      description: operation.description,
      ...(parameters.length > 0 ? { parameters } : {}),
      ...(operation.requestBody
        ? {
            requestBody: {
              required: false,
              content: { 'application/json': { schema: operation.requestBody } },
            },
          }
        : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Gatehouse admin API',
      version: '1',
      description: `The admin API of ${issuer}. Every operation needs an access token of this instance (\`Authorization: Bearer\`, or a DPoP-bound token with \`Authorization: DPoP\` and its \`DPoP\` proof) carrying the scope \`${scope}\`, whose caller the host's \`admin.authorize\` hook allows. Cross-site browser requests are refused; no CORS. Every POST and DELETE is an audit record (\`admin.action\`) naming its actor.`,
    },
    servers: [{ url: `${issuer}${ADMIN_PREFIX}` }],
    security: [{ gatehouse: [scope] }],
    paths,
    components: {
      schemas: SCHEMAS,
      securitySchemes: {
        gatehouse: {
          type: 'oauth2',
          description:
            'Access tokens of this instance. DPoP-bound tokens (RFC 9449) are presented with `Authorization: DPoP` and a `DPoP` proof.',
          flows: {
            clientCredentials: {
              tokenUrl: `${issuer}${ENDPOINTS.token}`,
              scopes: { [scope]: 'Administer the instance' },
            },
            authorizationCode: {
              authorizationUrl: `${issuer}${ENDPOINTS.authorization}`,
              tokenUrl: `${issuer}${ENDPOINTS.token}`,
              scopes: { [scope]: 'Administer the instance' },
            },
          },
        },
      },
    },
  };
}
