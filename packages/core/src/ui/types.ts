/** What the login page shows. Every string is raw: renderers must HTML-escape it. */
export interface LoginPageModel {
  /** Where the form posts (same origin). */
  readonly action: string;
  /** CSRF token: must be posted back in a hidden field named `csrf_token`. */
  readonly csrfToken: string;
  /** Hidden fields carrying the pending authorization request; post them back unchanged. */
  readonly hiddenFields: Readonly<Record<string, string>>;
  /** The username typed before a failure, to prefill. */
  readonly username?: string;
  /** A generic failure message, when the previous attempt failed. */
  readonly error?: string;
  /** Name of the client the user is signing in to, when any. */
  readonly clientName?: string;
}

/** What the consent page shows. Every string is raw: renderers must HTML-escape it. */
export interface ConsentPageModel {
  readonly action: string;
  readonly csrfToken: string;
  readonly hiddenFields: Readonly<Record<string, string>>;
  readonly clientName: string;
  readonly scopes: readonly string[];
  readonly username?: string;
}

/** What the logout confirmation page shows. */
export interface LogoutPageModel {
  readonly action: string;
  readonly csrfToken: string;
}

/** What an error page shows (authorization requests that cannot be redirected). */
export interface ErrorPageModel {
  readonly error: string;
  readonly description: string;
}

export type LoginPageRenderer = (model: LoginPageModel) => string;
export type ConsentPageRenderer = (model: ConsentPageModel) => string;
export type LogoutPageRenderer = (model: LogoutPageModel) => string;
export type ErrorPageRenderer = (model: ErrorPageModel) => string;
