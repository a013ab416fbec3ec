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
  /**
   * The host of the redirect URI the user will be sent back to (`app.example.com`,
   * `127.0.0.1:8080`). A self-registered client chooses its own name, so the host it sends the
   * user to is what identifies it.
   */
  readonly redirectHost?: string;
  /** The scopes asked for (may be empty: access to the account without a named scope). */
  readonly scopes: readonly string[];
  /**
   * What granting a scope reveals, in words, for the scopes that have a description (those of
   * OpenID Connect: `openid`, `profile`, `email`, `address`, `phone`, `offline_access`).
   */
  readonly scopeDescriptions?: Readonly<Record<string, string>>;
  readonly username?: string;
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
}

/** What an error page shows (authorization requests that cannot be redirected, refused forms). */
export interface ErrorPageModel {
  /** The error code (`invalid_request`, `forbidden`, …). */
  readonly error: string;
  /** A human-readable explanation, never containing secrets. */
  readonly description: string;
  /** The HTTP status of the page. */
  readonly status: number;
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
}

/** Renders the end-session page: a complete HTML document. */
export type EndSessionPageRenderer = (model: EndSessionPageModel) => string;
