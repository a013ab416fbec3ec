/**
 * `oidcc-config-certification-test-plan` (the Config OP profile): one module,
 * `oidcc-discovery-endpoint-verification`, which reads the OpenID Provider configuration and the
 * server's JWKS and checks them against OpenID Connect Discovery 1.0 §3/§4, RFC 8414 §2 and RFC
 * 7517 — the checks the OpenID Foundation's module runs (its conditions are named in comments).
 */
import type { ModuleContext } from '../context.js';
import { discover, fetchJwks, list, type Metadata } from '../op.js';
import type { TestModule, TestPlan } from '../runner.js';

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/;

/**
 * Every endpoint must be https (CheckDiscEndpointAllEndpointsAreHttps). An issuer on a loopback
 * host (a development server) gets a warning instead: the hosted suite would fail it.
 */
export function checkHttps(
  t: ModuleContext,
  metadata: Metadata,
  exchange: import('../types.js').Exchange,
): void {
  for (const [name, value] of Object.entries(metadata)) {
    if (
      !(name === 'issuer' || name.endsWith('_endpoint') || name === 'jwks_uri') ||
      typeof value !== 'string'
    )
      continue;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      t.fail('OIDCD-3', `${name} is not a URL: ${JSON.stringify(value)}`, exchange);
      continue;
    }
    if (url.protocol === 'https:') continue;
    if (url.protocol === 'http:' && LOOPBACK.test(url.hostname)) {
      t.warn(
        'OIDCD-3',
        `${name} uses http on a loopback host (${value}): accepted for a development server, the hosted suite requires https`,
      );
    } else {
      t.fail('OIDCD-3', `${name} is not an https URL: ${value}`, exchange);
    }
  }
}

/** RFC 6749 §3.3: a scope token is one or more NQCHAR (%x21 / %x23-5B / %x5D-7E). */
const SCOPE_TOKEN = /^[\x21\x23-\x5B\x5D-\x7E]+$/;
/** A BCP 47 language tag, loosely (RFC 5646 §2.1). */
const LANGUAGE_TAG = /^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/;
/** JWK members that only a private key has (RFC 7518 §6.2.2, §6.3.2, §6.4.1). */
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k', 'priv'];

const discoveryEndpointVerification: TestModule = {
  name: 'oidcc-discovery-endpoint-verification',
  summary:
    'Reads the OpenID Provider configuration and the JWKS: required members, response types, subject types, RS256 for ID tokens, endpoints, keys, scopes and locales.',
  sections: ['OIDCD-3', 'OIDCD-4', 'OIDCD-4.3', 'RFC8414-2', 'RFC7517-4', 'RFC6749-3.3', 'RFC7636-4.3'],
  async run(t) {
    const { metadata, answer } = await discover(t);
    const x = answer.exchange;
    // CheckDiscoveryEndpointReturnedJsonContentType
    t.check(
      /^application\/json/i.test(answer.headers.get('content-type') ?? ''),
      'OIDCD-4.2',
      'the configuration is not served as application/json',
      x,
    );
    // CheckDiscEndpointIssuerIsValidUrl: https (or loopback http), no query, no fragment.
    try {
      const issuer = new URL(metadata.issuer);
      t.check(!issuer.search && !issuer.hash, 'RFC8414-2', 'the issuer has a query or fragment', x);
    } catch {
      t.fail('RFC8414-2', 'the issuer is not a URL', x);
    }
    // ValidateServerMetadataAgainstSchema: the members Discovery §3 makes REQUIRED.
    for (const name of [
      'authorization_endpoint',
      'token_endpoint',
      'jwks_uri',
      'response_types_supported',
      'subject_types_supported',
      'id_token_signing_alg_values_supported',
    ]) {
      t.check(metadata[name] !== undefined, 'OIDCD-3', `the configuration lacks ${name} (REQUIRED)`, x);
    }
    for (const name of [
      'response_types_supported',
      'subject_types_supported',
      'id_token_signing_alg_values_supported',
      'scopes_supported',
      'grant_types_supported',
      'claims_supported',
      'token_endpoint_auth_methods_supported',
      'ui_locales_supported',
      'claims_locales_supported',
      'code_challenge_methods_supported',
    ]) {
      const value = metadata[name];
      if (value === undefined) continue;
      const section = name === 'code_challenge_methods_supported' ? 'RFC7636-4.3' : 'OIDCD-3';
      t.check(
        Array.isArray(value) && value.every((item) => typeof item === 'string'),
        section,
        `${name} is not a JSON array of strings`,
        x,
      );
    }
    for (const name of [
      'claims_parameter_supported',
      'request_parameter_supported',
      'request_uri_parameter_supported',
      'require_request_uri_registration',
    ]) {
      if (metadata[name] !== undefined)
        t.check(typeof metadata[name] === 'boolean', 'OIDCD-3', `${name} is not a boolean`, x);
    }
    // OIDCCCheckDiscEndpointResponseTypesSupported: a static client uses `code`.
    t.check(
      list(metadata, 'response_types_supported').includes('code'),
      'OIDCC-3',
      'response_types_supported does not contain code',
      x,
    );
    // CheckDiscEndpointSubjectTypesSupported
    const subjectTypes = list(metadata, 'subject_types_supported');
    t.check(
      subjectTypes.length > 0 && subjectTypes.every((type) => type === 'public' || type === 'pairwise'),
      'OIDCD-3',
      `subject_types_supported must list public and/or pairwise, not ${JSON.stringify(metadata.subject_types_supported)}`,
      x,
    );
    // OIDCCCheckDiscEndpointIdTokenSigningAlgValuesSupported: RS256 MUST be included.
    t.check(
      list(metadata, 'id_token_signing_alg_values_supported').includes('RS256'),
      'OIDCD-3',
      'id_token_signing_alg_values_supported must include RS256',
      x,
    );
    // CheckDiscEndpointUserinfoEndpoint: RECOMMENDED.
    if (metadata.userinfo_endpoint === undefined)
      t.warn('OIDCD-3', 'the configuration has no userinfo_endpoint (RECOMMENDED)', x);
    // OIDCCCheckDiscEndpointClaimsSupported: RECOMMENDED.
    if (metadata.claims_supported === undefined)
      t.warn('OIDCD-3', 'the configuration has no claims_supported (RECOMMENDED)', x);
    // CheckDiscEndpointRequestObjectSigningAlgValuesSupportedIncludesRS256: a warning.
    const requestAlgs = metadata.request_object_signing_alg_values_supported;
    if (
      requestAlgs !== undefined &&
      !list(metadata, 'request_object_signing_alg_values_supported').includes('RS256')
    ) {
      t.warn('OIDCD-3', 'request_object_signing_alg_values_supported should include RS256', x);
    }
    // OIDCCCheckDiscEndpointGrantTypesSupported: the code flow's grant.
    if (metadata.grant_types_supported !== undefined) {
      t.check(
        list(metadata, 'grant_types_supported').includes('authorization_code'),
        'OIDCD-3',
        'grant_types_supported does not contain authorization_code',
        x,
      );
    }
    // CheckDiscEndpointScopesSupportedContainsOpenId (a warning when scopes_supported is absent).
    if (metadata.scopes_supported === undefined)
      t.warn('OIDCD-3', 'the configuration has no scopes_supported (RECOMMENDED)', x);
    else {
      const scopes = list(metadata, 'scopes_supported');
      t.check(scopes.includes('openid'), 'OIDCD-3', 'scopes_supported does not contain openid', x);
      for (const scope of scopes)
        t.check(
          SCOPE_TOKEN.test(scope),
          'RFC6749-3.3',
          `scopes_supported has an invalid scope token ${JSON.stringify(scope)}`,
          x,
        );
    }
    // CheckDiscEndpointLocalesSyntax / CheckDiscEndpointLocalesCanonicalCasing
    for (const name of ['ui_locales_supported', 'claims_locales_supported']) {
      for (const tag of list(metadata, name)) {
        if (
          !t.check(
            LANGUAGE_TAG.test(tag),
            'RFC8414-2',
            `${name} has ${JSON.stringify(tag)}, not a BCP 47 language tag`,
            x,
          )
        )
          continue;
        const [language, ...rest] = tag.split('-');
        const canonical = [
          language!.toLowerCase(),
          ...rest.map((part) => (part.length === 2 ? part.toUpperCase() : part)),
        ].join('-');
        if (canonical !== tag && rest.every((part) => part.length === 2))
          t.warn('RFC8414-2', `${name}: ${tag} is usually written ${canonical}`, x);
      }
    }
    // CheckDiscEndpointAllEndpointsAreHttps
    checkHttps(t, metadata, x);
    // CheckJwksUri, FetchServerKeys, ValidateJwksSequence
    const jwks = await fetchJwks(t, metadata);
    const kids = new Set<string>();
    for (const key of jwks.keys) {
      const k = key as Record<string, unknown>;
      t.check(typeof k.kty === 'string', 'RFC7517-4.1', 'a key of the JWKS has no kty');
      for (const member of PRIVATE_MEMBERS) {
        t.check(
          k[member] === undefined,
          'RFC7517-4',
          `a key of the JWKS (kid ${String(k.kid)}) publishes the private member ${member}`,
        );
      }
      if (typeof k.kid === 'string') {
        t.check(!kids.has(k.kid), 'RFC7517-4.5', `two keys of the JWKS share kid ${k.kid}`);
        kids.add(k.kid);
      }
      if (k.kty === 'RSA' && typeof k.n === 'string') {
        t.check(
          Math.floor((k.n.length * 6) / 8) >= 256 - 1,
          'RFC7518-3.3',
          `RSA key ${String(k.kid)} is shorter than 2048 bits`,
        );
      }
    }
    t.check(
      jwks.keys.some((key) => key.use !== 'enc'),
      'OIDCD-3',
      'the JWKS holds no signing key',
    );
  },
};

export const configPlan: TestPlan = {
  id: 'oidcc-config-certification-test-plan',
  title: 'OpenID Connect Core: Config Certification Profile Authorization server test',
  interactive: false,
  modules: [discoveryEndpointVerification],
};
