/*
 * The JSON Schemas (2020-12, as OpenAPI 3.1 uses them) of the admin API's answers: the document's
 * `components.schemas`, referenced by the operations (`operations.ts`).
 */

type Schema = Readonly<Record<string, unknown>>;

const text: Schema = { type: 'string' };
const time: Schema = { type: 'string', format: 'date-time' };
const nullable = (schema: Schema): Schema => ({ oneOf: [schema, { type: 'null' }] });
const object = (
  properties: Record<string, Schema>,
  required: readonly string[] = Object.keys(properties),
): Schema => ({
  type: 'object',
  properties,
  required: [...required],
});
const list = (items: Schema): Schema => ({ type: 'array', items });
const ref = (name: keyof typeof SCHEMAS): Schema => ({ $ref: `#/components/schemas/${name}` });
/** Per-minute counts of the last hour, by name. */
const counters: Schema = {
  type: 'object',
  additionalProperties: { type: 'array', items: { type: 'integer', minimum: 0 }, minItems: 60, maxItems: 60 },
};

export const SCHEMAS = {
  Error: object({ error: text, error_description: text }, ['error']),
  Key: object({
    kid: text,
    alg: text,
    state: { type: 'string', enum: ['next', 'signing', 'retired', 'revoked'] },
    since: nullable(time),
    until: nullable(time),
    publishedAt: nullable(time),
    source: { type: 'string', enum: ['stored', 'option'] },
  }),
  SigningKey: object({ kid: text, alg: text, why: text }),
  Keys: object(
    {
      keys: list({ $ref: '#/components/schemas/Key' }),
      signing: { $ref: '#/components/schemas/SigningKey' },
      signingKeys: list({ $ref: '#/components/schemas/SigningKey' }),
      rotation: { type: 'object', properties: { enabled: { type: 'boolean' } }, required: ['enabled'] },
      cost: text,
    },
    ['keys', 'signing', 'signingKeys', 'rotation'],
  ),
  Client: object(
    {
      clientId: text,
      name: text,
      selfRegistered: { type: 'boolean' },
      origin: { type: 'string', enum: ['dynamic-registration', 'metadata-document', 'host'] },
      type: { type: 'string', enum: ['public', 'confidential'] },
      grantTypes: list(text),
      createdAt: time,
      lastUsedAt: time,
      expiresAt: time,
    },
    ['clientId', 'selfRegistered', 'grantTypes'],
  ),
  User: object({ id: text, username: text, name: text }, ['id']),
  Session: object(
    {
      id: text,
      sid: text,
      createdAt: time,
      lastSeenAt: time,
      expiresAt: time,
      clients: list(text),
    },
    ['id', 'sid', 'createdAt', 'expiresAt', 'clients'],
  ),
  Grant: object(
    {
      id: text,
      grantId: text,
      clientId: text,
      clientName: text,
      scope: text,
      scopes: list(text),
      createdAt: time,
      lastUsedAt: time,
      expiresAt: time,
    },
    ['id', 'grantId', 'clientId', 'scope', 'scopes', 'lastUsedAt', 'expiresAt'],
  ),
  AuditRecord: {
    type: 'object',
    properties: {
      time,
      type: text,
      instance: text,
      outcome: { type: 'string', enum: ['success', 'failure'] },
      reason: text,
      clientId: text,
      subject: text,
      subjectType: { type: 'string', enum: ['user', 'client'] },
      clientAddress: text,
      actor: object(
        { clientId: text, subject: text, subjectType: { type: 'string', enum: ['user', 'client'] } },
        ['subject', 'subjectType'],
      ),
      details: { type: 'object', additionalProperties: text },
    },
    required: ['time', 'type', 'instance', 'outcome'],
  },
  Health: object({
    status: { type: 'string', enum: ['ok', 'degraded'] },
    engine: object({ reachable: { type: 'boolean' }, latencyMs: nullable({ type: 'number' }) }),
    revocations: object(
      { pushed: { type: 'boolean' }, live: { type: 'boolean' }, lagMs: nullable({ type: 'number' }) },
      ['pushed', 'lagMs'],
    ),
    keys: object({ signing: text, states: { type: 'object', additionalProperties: text } }, [
      'signing',
      'states',
    ]),
  }),
  Metrics: object({
    since: time,
    until: time,
    bucketSeconds: { const: 60 },
    series: object({ tokensIssued: counters, refusals: counters }),
  }),
} as const satisfies Record<string, Schema>;

export type { Schema };
export { list, object, ref };
