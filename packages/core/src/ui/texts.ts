import { ConfigurationError } from '../errors.js';
import type { PageSourceOptions, UiOptions, UiTexts } from '../options.js';
import { BUILT_IN_MESSAGES, DEFAULT_LOCALE } from './messages.js';
import { formTargetSource } from './page-response.js';
import type { PageTexts } from './types.js';

/**
 * What granting each scope value reveals, in words for the consent page (Core §5.4 for the standard
 * ones, §11 for `offline_access`). Scopes of the host's API have no entry: the page shows their
 * name, unless `ui.scopeDescriptions` describes them. `@gatehousejs/core/ui` exports it as
 * `BUILT_IN_SCOPE_DESCRIPTIONS`, for a host's own consent page.
 */
export const SCOPE_DESCRIPTIONS: Readonly<Record<string, string>> = Object.freeze({
  openid: 'Know who you are: an identifier of your account',
  profile: 'Your profile: name, username, picture and similar details',
  email: 'Your email address, and whether it is verified',
  address: 'Your postal address',
  phone: 'Your phone number, and whether it is verified',
  offline_access: 'Stay connected: access while you are not signed in',
});

/** The built-in wording of the pages, in English. */
export const DEFAULT_PAGE_TEXTS: PageTexts = BUILT_IN_MESSAGES[DEFAULT_LOCALE]!;

/** The extra CSP sources of the pages, by directive. */
export type PageSources = Readonly<
  Partial<Record<'style-src' | 'font-src' | 'script-src' | 'img-src' | 'connect-src', readonly string[]>>
>;

/** The `ui` options as the pages use them: renderers, wording, scope descriptions, logo source. */
export interface ResolvedUi
  extends Omit<
    UiOptions,
    | 'texts'
    | 'scopeDescriptions'
    | 'productName'
    | 'logoUrl'
    | 'usernameLabel'
    | 'messages'
    | 'contentSecurityPolicy'
  > {
  /** English wording with the defaults filled in (the default language's catalog). */
  readonly texts: PageTexts;
  /** The wording of every language of the catalog (built-in and `ui.messages`), by lower-case tag. */
  readonly catalog: ReadonlyMap<string, PageTexts>;
  /** The languages of {@link catalog}. */
  readonly locales: ReadonlySet<string>;
  /** Sources the pages may load besides their own (`ui.contentSecurityPolicy`). */
  readonly sources: PageSources;
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

/** `base` overlaid with the checked strings of `custom` (an option at `path`). */
function overlay(base: PageTexts, custom: UiTexts | undefined, path: string): Record<string, string> {
  if (custom === undefined) return { ...base } as unknown as Record<string, string>;
  if (typeof custom !== 'object' || custom === null) {
    throw new ConfigurationError(`${path}: expected an object of strings.`, {
      code: 'ERR_CONFIG_INVALID_OPTION',
      option: path,
    });
  }
  const texts = { ...base } as unknown as Record<string, string>;
  for (const [name, value] of Object.entries(custom)) {
    if (!Object.hasOwn(DEFAULT_PAGE_TEXTS, name))
      throw new ConfigurationError(
        `${path}.${name}: unknown text (known: ${Object.keys(DEFAULT_PAGE_TEXTS).join(', ')}).`,
        { code: 'ERR_CONFIG_UNKNOWN_OPTION', option: `${path}.${name}` },
      );
    const checked = text(`${path}.${name}`, value);
    if (checked !== undefined) texts[name] = checked;
  }
  return texts;
}

const LOCALE_TAG = /^[a-z]{2,3}(-[a-z0-9]{2,8})*$/;

/** The CSP sources of `ui.contentSecurityPolicy`: `'self'` or https origins, checked. */
function pageSources(options: PageSourceOptions | undefined): PageSources {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null)
    throw new ConfigurationError('ui.contentSecurityPolicy: expected an object of source lists.', {
      code: 'ERR_CONFIG_INVALID_OPTION',
      option: 'ui.contentSecurityPolicy',
    });
  const directives = {
    styles: 'style-src',
    fonts: 'font-src',
    scripts: 'script-src',
    images: 'img-src',
    connect: 'connect-src',
  } as const;
  const sources: Record<string, string[]> = {};
  for (const [name, list] of Object.entries(options)) {
    const directive = directives[name as keyof typeof directives];
    if (directive === undefined)
      throw new ConfigurationError(
        `ui.contentSecurityPolicy.${name}: unknown (known: ${Object.keys(directives).join(', ')}).`,
        { code: 'ERR_CONFIG_UNKNOWN_OPTION', option: `ui.contentSecurityPolicy.${name}` },
      );
    if (!Array.isArray(list))
      throw new ConfigurationError(`ui.contentSecurityPolicy.${name}: expected an array.`, {
        code: 'ERR_CONFIG_INVALID_OPTION',
        option: `ui.contentSecurityPolicy.${name}`,
      });
    sources[directive] = list.map((source: unknown) => {
      if (source === "'self'") return source;
      let url: URL | undefined;
      try {
        url = typeof source === 'string' ? new URL(source) : undefined;
      } catch {}
      // An origin parsed by URL cannot smuggle CSP syntax (`;`, quotes, `unsafe-inline`).
      if (url === undefined || url.protocol !== 'https:' || url.origin !== source)
        throw new ConfigurationError(
          `ui.contentSecurityPolicy.${name}: "${String(source)}" is not 'self' or an https origin (https://host[:port]).`,
          { code: 'ERR_CONFIG_INVALID_OPTION', option: `ui.contentSecurityPolicy.${name}` },
        );
      return url.origin;
    });
  }
  return sources;
}

/** Checks the `ui` options and fills in the defaults (at creation: mistakes throw there). */
export function resolveUi(options: UiOptions | undefined, issuer: string): ResolvedUi {
  const ui = options ?? {};
  const texts = overlay(DEFAULT_PAGE_TEXTS, ui.texts, 'ui.texts');
  const usernameLabel = text('ui.usernameLabel', ui.usernameLabel);
  if (usernameLabel !== undefined) texts.usernameLabel = usernameLabel;
  const productName = text('ui.productName', ui.productName);
  const logoUrl = text('ui.logoUrl', ui.logoUrl);
  if (productName !== undefined) texts.productName = productName;
  if (logoUrl !== undefined) texts.logoUrl = logoUrl;
  const english = Object.freeze(texts) as unknown as PageTexts;
  const catalog = new Map<string, PageTexts>([[DEFAULT_LOCALE, english]]);
  const branding = {
    ...(productName === undefined ? {} : { productName }),
    ...(logoUrl === undefined ? {} : { logoUrl }),
  };
  for (const [tag, messages] of Object.entries(BUILT_IN_MESSAGES)) {
    if (tag !== DEFAULT_LOCALE) catalog.set(tag, Object.freeze({ ...messages, ...branding }));
  }
  const messages = ui.messages ?? {};
  if (typeof messages !== 'object' || messages === null)
    throw new ConfigurationError('ui.messages: expected an object of languages.', {
      code: 'ERR_CONFIG_INVALID_OPTION',
      option: 'ui.messages',
    });
  for (const [tag, custom] of Object.entries(messages)) {
    const lower = tag.toLowerCase();
    if (!LOCALE_TAG.test(lower))
      throw new ConfigurationError(`ui.messages.${tag}: not a language tag (BCP 47, e.g. "fr" or "pt-BR").`, {
        code: 'ERR_CONFIG_INVALID_OPTION',
        option: `ui.messages.${tag}`,
      });
    const base = catalog.get(lower) ?? english;
    catalog.set(
      lower,
      Object.freeze({ ...overlay(base, custom, `ui.messages.${tag}`), ...branding }) as unknown as PageTexts,
    );
  }
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
    texts: english,
    catalog,
    locales: new Set(catalog.keys()),
    sources: pageSources(ui.contentSecurityPolicy),
    scopeDescriptions: Object.freeze(scopeDescriptions),
    ...(source === undefined ? {} : { logoSource: source }),
  };
}
