import { type GatehouseOptions, generateKeys } from '@gatehousejs/core';
import { describe, expect, it } from 'vitest';
import { ISSUER, testKey } from '../../test/fixtures';
import { assembleFeatures } from '../feature';
import { deviceAuthorizationFeature } from '../oauth2/device/feature';
import { coreGrantsFeature } from '../oauth2/grants/feature';
import { authorizationServerMetadata } from '../oauth2/metadata';
import { importKeySet } from '../tokens/keys';
import { openIdProviderMetadata } from './discovery';

/** The grant types and discovery members of an instance's default features. */
const features = assembleFeatures(
  [coreGrantsFeature, deviceAuthorizationFeature],
  {} as GatehouseOptions,
  {} as never,
).discovery;

async function context(scopes?: string[]) {
  const keys = await importKeySet([await testKey(), await generateKeys('RS256')], 'ES256');
  return {
    issuer: ISSUER,
    keys,
    tokens: {
      scopes: scopes ? new Set(scopes) : undefined,
      resources: new Set([`${ISSUER}/api/v1`]),
    },
    profile: { securityProfile: undefined, confidentialClientsOnly: false },
    // The grant types and discovery members of an instance's default features.
    features: assembleFeatures(
      [coreGrantsFeature, deviceAuthorizationFeature],
      {} as GatehouseOptions,
      {} as never,
    ),
  };
}

describe('OpenID Provider metadata (Discovery section 3)', () => {
  it('has every required field, and the recommended ones', async () => {
    const doc = openIdProviderMetadata(await context(['profile', 'tickets:read']), features);
    for (const field of [
      'issuer',
      'authorization_endpoint',
      'token_endpoint',
      'jwks_uri',
      'response_types_supported',
      'subject_types_supported',
      'id_token_signing_alg_values_supported',
      'userinfo_endpoint',
      'scopes_supported',
      'claims_supported',
    ])
      expect(doc, field).toHaveProperty(field);
    expect(doc.scopes_supported).toEqual(['openid', 'profile', 'tickets:read']);
    expect(doc.subject_types_supported).toEqual(['public']);
    expect(doc.claims_supported).toEqual(
      expect.arrayContaining(['sub', 'name', 'email', 'email_verified', 'auth_time', 'acr', 'amr']),
    );
    expect(doc).toMatchObject({
      claims_parameter_supported: false,
      request_parameter_supported: false,
      request_uri_parameter_supported: false,
      prompt_values_supported: ['none', 'login', 'consent'],
      end_session_endpoint: `${ISSUER}/oauth2/v1/end-session`,
    });
  });

  it('advertises RS256 first, then the other algorithms the instance holds keys of', async () => {
    expect(openIdProviderMetadata(await context(), features).id_token_signing_alg_values_supported).toEqual([
      'RS256',
      'ES256',
    ]);
  });

  it('agrees with the RFC 8414 document on the issuer and every endpoint', async () => {
    const ctx = await context();
    const oidc = openIdProviderMetadata(ctx, features);
    const oauth = authorizationServerMetadata(ctx, features);
    for (const [field, value] of Object.entries(oauth))
      if (field !== 'scopes_supported') expect(oidc[field], field).toEqual(value);
    expect(oidc.issuer).toBe(ISSUER);
  });

  it('lists the OpenID Connect scopes when the instance accepts any scope', async () => {
    expect(openIdProviderMetadata(await context(), features).scopes_supported).toEqual([
      'openid',
      'profile',
      'email',
      'address',
      'phone',
      'offline_access',
    ]);
  });
});
