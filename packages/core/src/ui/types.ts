/** Why a login attempt failed, as the login page's model says it (`errorCode`): stable, never wording. */
export type LoginErrorCode =
  | 'invalid_credentials'
  | 'missing_credentials'
  | 'rate_limited'
  | 'busy'
  | 'form_expired';

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
  /** Under the login heading: "to continue to {client}". */
  readonly continueTo: string;
  /** Consent page: "{client} wants to act on your behalf." */
  readonly wantsToAct: string;
  /** Consent page, before the scopes: "It asks for:". */
  readonly asksFor: string;
  /** Consent page without scopes: "It asks for access to your account." */
  readonly asksForAccount: string;
  /** Consent page, before the resources: "At:". */
  readonly resourcesAt: string;
  /**
   * Consent page, before the authorization details (RFC 9396): "In detail:". Optional for texts
   * made before it existed (the page then says "In detail:").
   */
  readonly detailsAsked?: string;
  /** Consent page: "You will be sent back to {host}." */
  readonly sentBackTo: string;
  /** Consent page: "Signed in as {user}." */
  readonly signedInAs: string;
  /** Login failure `invalid_credentials`: "The username or password is incorrect." */
  readonly loginInvalidCredentials: string;
  /** Login failure `missing_credentials`: "Enter your username and password." */
  readonly loginMissingCredentials: string;
  /** Login failure `rate_limited`. */
  readonly loginRateLimited: string;
  /** Login failure `busy` (too many password checks in flight). */
  readonly loginBusy: string;
  /** Login failure `form_expired` (the CSRF token did not match). */
  readonly loginFormExpired: string;
  /** Login and consent pages, for a self-registered client. Default "This application registered itself; its name is its own claim, not checked by this site.". */
  readonly selfRegistered: string;
  /** The same, for a client ID metadata document client ({host}: its `client_id`'s host). Default "This application registered itself from {host}; its name is its own claim, not checked by this site.". */
  readonly selfRegisteredFrom: string;
  /** Heading (and title) of the device code form. Default "Connect a device". */
  readonly deviceCodeTitle: string;
  /** Device code form. Default "Enter the code shown on your device.". */
  readonly deviceCodeIntro: string;
  /** Label of the device code form's `user_code` field. Default "Code". */
  readonly deviceCodeLabel: string;
  /** The device code form's button. Default "Continue". */
  readonly deviceCodeButton: string;
  /** Device code form: a wrong, expired or used code. Default "That code is not valid, has expired or was already used. Check the code on your device.". */
  readonly deviceCodeInvalid: string;
  /** Device code form: not a code. Default "Enter the 8-letter code shown on your device (like BCDF-GHJK).". */
  readonly deviceCodeMalformed: string;
  /** Heading (and title) of the device confirmation page. Default "Connect a device?". */
  readonly deviceConfirmTitle: string;
  /** Device confirmation page. Default "{client} on a device wants to act on your behalf.". */
  readonly deviceWantsToAct: string;
  /** Device confirmation page, before the code. Default "Check that this is the code shown on your device:". */
  readonly deviceCompareCode: string;
  /** Device confirmation page ({deny}: the deny button's text). Default "If it is not, or you did not start this sign-in yourself, choose {deny}.". */
  readonly deviceDenyHint: string;
  /** Device confirmation posted without a decision. Default "Choose {allow} or {deny}.". */
  readonly deviceChooseDecision: string;
  /** Heading of the page after the device was allowed. Default "Device connected". */
  readonly deviceApprovedTitle: string;
  /** Page after the device was allowed. Default "The device is signed in. You can close this page and return to your device.". */
  readonly deviceApprovedText: string;
  /** Heading of the page after the device was denied. Default "Access denied". */
  readonly deviceDeniedTitle: string;
  /** Page after the device was denied. Default "The device was not given access. You can close this page.". */
  readonly deviceDeniedText: string;
  /** Title of the approval page (CIBA). Default "Requests awaiting your approval". */
  readonly approvalsTitle: string;
  /** Intro of the approval page. */
  readonly approvalsIntro: string;
  /** The approval page without a pending request. Default "No request is waiting for your approval.". */
  readonly approvalsEmpty: string;
  /** Label of a request's binding message. Default "Message:". */
  readonly approvalsBindingMessage: string;
  /** After "Allow". Default "The request was allowed.". */
  readonly approvalsAllowed: string;
  /** After "Deny". Default "The request was denied.". */
  readonly approvalsDenied: string;
  /** A request expired or decided meanwhile. */
  readonly approvalsGone: string;
}

/** What every renderer receives besides its model. */
export interface PageContext {
  /** The browser's request the page answers. */
  readonly request: Request;
  /**
   * The page's language: the first of the authorization request's `ui_locales`, then of the
   * browser's `Accept-Language`, that the catalog has (`ui.messages`, built in: `en`, `fr`); else `en`.
   * The model's `texts` are already in it.
   */
  readonly locale: string;
}

/** What the login page shows. Every string is raw: renderers must HTML-escape it (`escapeHtml`). */
export interface LoginPageModel {
  /** Where the form posts (same origin), with method POST. */
  readonly action: string;
  /** CSRF token: must be posted back in a hidden field named `csrf_token`. */
  readonly csrfToken: string;
  /** Hidden fields (`interaction`: the reference of the pending sign-in or consent); post them back unchanged. */
  readonly hiddenFields: Readonly<Record<string, string>>;
  /** The username typed before a failure, to prefill. */
  readonly username?: string;
  /** A generic failure message, when the previous attempt failed (the same for every cause), in the page's language. */
  readonly error?: string;
  /**
   * Why the previous attempt failed, as a stable code to build your own message from:
   * `invalid_credentials` (unknown user and wrong password alike), `missing_credentials`,
   * `rate_limited`, `busy`, `form_expired`.
   */
  readonly errorCode?: LoginErrorCode;
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
  /** Hidden fields (`interaction`: the reference of the pending sign-in or consent); post them back unchanged. */
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
  /**
   * The authorization details asked for (RFC 9396), each in the words of its type's `describe`
   * (`authorizationDetails.types`), in the page's language; absent when none were.
   */
  readonly authorizationDetails?: readonly { readonly type: string; readonly description: string }[];
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

/** A page's HTML, at once or later (a renderer may load templates, translations, …). */
export type PageHtml = string | Promise<string>;
/** Renders the login page: a complete HTML document. */
export type LoginPageRenderer = (model: LoginPageModel, context: PageContext) => PageHtml;
/** Renders the consent page: a complete HTML document. */
export type ConsentPageRenderer = (model: ConsentPageModel, context: PageContext) => PageHtml;
/** Renders the logout page: a complete HTML document. */
export type LogoutPageRenderer = (model: LogoutPageModel, context: PageContext) => PageHtml;
/** Renders an error page: a complete HTML document. */
export type ErrorPageRenderer = (model: ErrorPageModel, context: PageContext) => PageHtml;

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
export type EndSessionPageRenderer = (model: EndSessionPageModel, context: PageContext) => PageHtml;
