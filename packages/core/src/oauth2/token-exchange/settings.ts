import { ConfigurationError } from '../../errors.js';
import type { TokenExchangeOptions } from '../../options.js';
import { resourceUriProblem } from '../resource-indicators.js';

/** What the instance keeps of the `tokenExchange` option (validated, defaults filled in). */
export interface TokenExchangeSettings {
  readonly policy: TokenExchangeOptions['policy'];
  /** Issuers of the authorization servers ID-JAGs may be issued for. */
  readonly idJagAudiences: ReadonlySet<string>;
  /** Lifetime of an ID-JAG, in seconds. */
  readonly idJagTtl: number;
}

/** Validates the `tokenExchange` option; `undefined` when token exchange is off. */
export function tokenExchangeSettings(
  given: TokenExchangeOptions | undefined,
): TokenExchangeSettings | undefined {
  if (given === undefined) return undefined;
  if (typeof given !== 'object' || given === null || typeof given.policy !== 'function') {
    throw new ConfigurationError(
      'tokenExchange.policy: expected a function deciding each exchange ({ client, subject, actor, requested } → decision or null).',
      {
        code: given?.policy === undefined ? 'ERR_CONFIG_MISSING_OPTION' : 'ERR_CONFIG_INVALID_OPTION',
        option: 'tokenExchange.policy',
      },
    );
  }
  const audiences = given.idJagAudiences ?? [];
  if (!Array.isArray(audiences))
    throw new ConfigurationError('tokenExchange.idJagAudiences: expected an array of issuer URLs.', {
      option: 'tokenExchange.idJagAudiences',
    });
  for (const audience of audiences) {
    const problem = typeof audience === 'string' ? resourceUriProblem(audience) : 'is not a string';
    if (problem)
      throw new ConfigurationError(
        `tokenExchange.idJagAudiences: "${String(audience)}" ${problem} (an authorization server's issuer, RFC 8414 section 2).`,
        { option: 'tokenExchange.idJagAudiences' },
      );
  }
  const ttl = given.idJagTtl ?? 300;
  if (!Number.isInteger(ttl) || ttl < 10 || ttl > 300)
    throw new ConfigurationError(
      `tokenExchange.idJagTtl: expected a whole number of seconds between 10 and 300, got ${String(given.idJagTtl)}.`,
      { option: 'tokenExchange.idJagTtl' },
    );
  return { policy: given.policy, idJagAudiences: new Set(audiences), idJagTtl: ttl };
}
