/**
 * Every name a model carries (client names, usernames, hosts) has had its bidirectional controls
 * and invisible characters removed (`displayText`) before the renderer sees it.
 *
 * The wording and branding of the pages (the `ui` options with the defaults filled in), given to
 * every renderer in its model so that a replaced page can say what the built-in ones say. Every
 * string is raw: renderers must HTML-escape it.
 */
export interface PageTexts {
  /** The product's name, shown beside the logo and in page titles. Absent: none shown. */
  readonly productName?: string;
  /** The logo's URL (a path, an https URL or a `data:image` URL). Absent: no logo. */
  readonly logoUrl?: string;
  /** Label of the login form's `username` field. Default "Username". */
  readonly usernameLabel: string;
  /** Label of the login form's `password` field. Default "Password". */
  readonly passwordLabel: string;
  /** Heading of the login page. Default "Sign in". */
  readonly signInTitle: string;
  /** The login form's button. Default "Sign in". */
  readonly signInButton: string;
  /** Heading of the consent page. Default "Allow access?". */
  readonly consentTitle: string;
  /** The consent form's `allow` button. Default "Allow". */
  readonly allowButton: string;
  /** The consent form's `deny` button. Default "Deny". */
  readonly denyButton: string;
  /** Heading of the error page. Default "Something went wrong". */
  readonly errorTitle: string;
}

/** What the login page shows. Every string is raw: renderers must HTML-escape it (`escapeHtml`). */
export interface LoginPageModel {
  /** Where the form posts (same origin), with method POST. */
  readonly action: string;
  /** CSRF token: must be posted back in a hidden field named `csrf_token`. */
  readonly csrfToken: string;
  /** Hidden fields carrying the pending authorization request; post them back unchanged. */
  readonly hiddenFields: Readonly<Record<string, string>>;
  /** The username typed before a failure, to prefill. */
  readonly username?: string;
  /** A generic failure message, when the previous attempt failed (the same for every cause). */
  readonly error?: string;
  /** Name of the client the user is signing in to, when any. */
  readonly clientName?: string;
  /**
   * `true` when the client registered itself (RFC 7591 dynamic registration or a client ID
   * metadata document) rather than being one the host configured: its name is whatever its
   * creator chose, so a page should say so.
   */
  readonly selfRegistered?: boolean;
  /**
   * For a client ID metadata document client: the host of its `client_id` URL (e.g.
   * `app.example.com`), which identifies it better than its self-chosen name.
   */
  readonly clientHost?: string;
  /** Wording and branding (`ui` options). Gatehouse always sets it; the default renderer falls back to English. */
  readonly texts?: PageTexts;
}

/**
 * What the consent page shows. Every string is raw: renderers must HTML-escape it. The form has two
 * submit buttons named `decision`: value `allow` (labelled "Allow") and value `deny` ("Deny").
 */
export interface ConsentPageModel {
  /** Where the form posts (same origin), with method POST. */
  readonly action: string;
  /** CSRF token: must be posted back in a hidden field named `csrf_token`. */
  readonly csrfToken: string;
  /** Hidden fields carrying the pending authorization request; post them back unchanged. */
  readonly hiddenFields: Readonly<Record<string, string>>;
  readonly clientName: string;
  /** `true` when the client registered itself (see {@link LoginPageModel.selfRegistered}). */
  readonly selfRegistered?: boolean;
  /** The host of a client ID metadata document client's `client_id` URL (see {@link LoginPageModel.clientHost}). */
  readonly clientHost?: string;
  /**
   * The host of the redirect URI the user will be sent back to (`app.example.com`,
   * `127.0.0.1:8080`). A self-registered client chooses its own name, so the host it sends the
   * user to is what identifies it.
   */
  readonly redirectHost?: string;
  /** The scopes asked for (may be empty: access to the account without a named scope). */
  readonly scopes: readonly string[];
  /**
   * What granting a scope allows, in words, for the scopes that have a description: those of
   * OpenID Connect (`openid`, `profile`, `email`, `address`, `phone`, `offline_access`) and those of
   * the `ui.scopeDescriptions` option. The built-in page shows the description instead of the scope
   * string, and the scope string where there is none.
   */
  readonly scopeDescriptions?: Readonly<Record<string, string>>;
  /**
   * The protected resources the access is for (RFC 8707 `resource`, e.g. an MCP server's URL), when
   * the client named any; empty or absent: the instance's own API.
   */
  readonly resources?: readonly string[];
  readonly username?: string;
  /** Wording and branding (`ui` options). */
  readonly texts?: PageTexts;
}

/** What the logout page shows: a confirmation form, or the signed-out state. */
export interface LogoutPageModel {
  /** Where the confirmation form posts (same origin), with method POST. */
  readonly action: string;
  /** CSRF token: must be posted back in a hidden field named `csrf_token`. */
  readonly csrfToken: string;
  /** `confirm`: a session is active, ask before ending it. `signed-out`: no session (any more). */
  readonly state: 'confirm' | 'signed-out';
  /** Who is signed in, in the `confirm` state. */
  readonly username?: string;
  /** Wording and branding (`ui` options). */
  readonly texts?: PageTexts;
}

/** What an error page shows (authorization requests that cannot be redirected, refused forms). */
export interface ErrorPageModel {
  /** The error code (`invalid_request`, `forbidden`, …). */
  readonly error: string;
  /**
   * What went wrong in this request, in words (e.g. "The redirect_uri is not registered for this
   * client."), never containing secrets or internals: for a 5xx status it is the explanation.
   */
  readonly description: string;
  /** What the error code means for the person in front of the browser, in plain words. */
  readonly explanation?: string;
  /** The HTTP status of the page. */
  readonly status: number;
  /** Wording and branding (`ui` options). */
  readonly texts?: PageTexts;
}

/** Renders the login page: a complete HTML document. */
export type LoginPageRenderer = (model: LoginPageModel) => string;
/** Renders the consent page: a complete HTML document. */
export type ConsentPageRenderer = (model: ConsentPageModel) => string;
/** Renders the logout page: a complete HTML document. */
export type LogoutPageRenderer = (model: LogoutPageModel) => string;
/** Renders an error page: a complete HTML document. */
export type ErrorPageRenderer = (model: ErrorPageModel) => string;

/**
 * What the end-session page shows (OpenID Connect RP-Initiated Logout 1.0): a confirmation form
 * when the logout request cannot prove it comes from the session's own relying party, or the
 * signed-out state when no redirect back to the relying party is allowed.
 */
export interface EndSessionPageModel {
  /** Where the confirmation form posts (same origin), with method POST. */
  readonly action: string;
  /** CSRF token: must be posted back in a hidden field named `csrf_token`. */
  readonly csrfToken: string;
  /** Hidden fields carrying the logout request; post them back unchanged. */
  readonly hiddenFields: Readonly<Record<string, string>>;
  /** `confirm`: ask before ending the session. `signed-out`: done, nowhere to return to. */
  readonly state: 'confirm' | 'signed-out';
  /** The relying party that asked, when known. */
  readonly clientName?: string;
  /** Who is signed in, in the `confirm` state. */
  readonly username?: string;
  /** Wording and branding (`ui` options). */
  readonly texts?: PageTexts;
}

/** Renders the end-session page: a complete HTML document. */
export type EndSessionPageRenderer = (model: EndSessionPageModel) => string;
