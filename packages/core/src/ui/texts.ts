import { ConfigurationError } from '../errors.js';
import { SCOPE_DESCRIPTIONS } from '../oidc/standard-claims.js';
import type { UiOptions, UiTexts } from '../options.js';
import { formTargetSource } from './page-response.js';
import type { PageTexts } from './types.js';

/** The built-in wording of the pages, in English. */
export const DEFAULT_PAGE_TEXTS: PageTexts = {
  usernameLabel: 'Username',
  passwordLabel: 'Password',
  signInTitle: 'Sign in',
  signInButton: 'Sign in',
  consentTitle: 'Allow access?',
  allowButton: 'Allow',
  denyButton: 'Deny',
  errorTitle: 'Something went wrong',
};

/** The `ui` options as the pages use them: renderers, wording, scope descriptions, logo source. */
export interface ResolvedUi
  extends Omit<UiOptions, 'texts' | 'scopeDescriptions' | 'productName' | 'logoUrl' | 'usernameLabel'> {
  /** Wording with the defaults filled in, handed to every page model. */
  readonly texts: PageTexts;
  /** The built-in descriptions (OpenID Connect scopes) overlaid with the host's. */
  readonly scopeDescriptions: Readonly<Record<string, string>>;
  /** The CSP `img-src` source the logo needs besides `'self' data:`, when it lives elsewhere. */
  readonly logoSource?: string;
}

/** Longest text option accepted: pages are not documents, and every byte goes into every page. */
const MAX_TEXT = 500;

function text(name: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value.trim() === '' || value.length > MAX_TEXT) {
    throw new ConfigurationError(`${name}: expected a non-empty string of at most ${MAX_TEXT} characters.`, {
      option: name,
    });
  }
  return value;
}

/**
 * Where the logo may be loaded from. Same-origin paths and `data:` images pass the pages' CSP
 * (`img-src 'self' data:`) as they are; an absolute https URL adds its origin to `img-src`.
 */
function logoSource(logoUrl: string, issuer: string): string | undefined {
  if (/^data:image\//i.test(logoUrl)) return undefined;
  let url: URL;
  try {
    url = new URL(logoUrl, issuer);
  } catch {
    throw new ConfigurationError('ui.logoUrl: expected a path, an https URL or a data:image URL.', {
      option: 'ui.logoUrl',
    });
  }
  if (url.origin === new URL(issuer).origin) return undefined;
  if (url.protocol !== 'https:') {
    throw new ConfigurationError('ui.logoUrl: a logo on another origin must be served over https.', {
      option: 'ui.logoUrl',
    });
  }
  return formTargetSource(url.href);
}

/** Checks the `ui` options and fills in the defaults (at creation: mistakes throw there). */
export function resolveUi(options: UiOptions | undefined, issuer: string): ResolvedUi {
  const ui = options ?? {};
  const custom: UiTexts = ui.texts ?? {};
  if (typeof custom !== 'object' || custom === null) {
    throw new ConfigurationError('ui.texts: expected an object of strings.', { option: 'ui.texts' });
  }
  const texts: Record<string, string> = { ...DEFAULT_PAGE_TEXTS };
  for (const [name, value] of Object.entries(custom)) {
    const checked = text(`ui.texts.${name}`, value);
    if (checked !== undefined) texts[name] = checked;
  }
  const usernameLabel = text('ui.usernameLabel', ui.usernameLabel);
  if (usernameLabel !== undefined) texts.usernameLabel = usernameLabel;
  const productName = text('ui.productName', ui.productName);
  const logoUrl = text('ui.logoUrl', ui.logoUrl);
  if (productName !== undefined) texts.productName = productName;
  if (logoUrl !== undefined) texts.logoUrl = logoUrl;
  const scopeDescriptions: Record<string, string> = { ...SCOPE_DESCRIPTIONS };
  for (const [scope, description] of Object.entries(ui.scopeDescriptions ?? {})) {
    scopeDescriptions[scope] = text(`ui.scopeDescriptions.${scope}`, description)!;
  }
  const source = logoUrl === undefined ? undefined : logoSource(logoUrl, issuer);
  return {
    ...(ui.renderLogin ? { renderLogin: ui.renderLogin } : {}),
    ...(ui.renderConsent ? { renderConsent: ui.renderConsent } : {}),
    ...(ui.renderLogout ? { renderLogout: ui.renderLogout } : {}),
    ...(ui.renderEndSession ? { renderEndSession: ui.renderEndSession } : {}),
    ...(ui.renderError ? { renderError: ui.renderError } : {}),
    texts: Object.freeze(texts) as unknown as PageTexts,
    scopeDescriptions: Object.freeze(scopeDescriptions),
    ...(source === undefined ? {} : { logoSource: source }),
  };
}
