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
  /** Heading (and title) of the connected apps page. Default "Connected apps". */
  readonly appsTitle: string;
  /** Connected apps page, above the list. Default "These applications can access your account. Revoke access for any you no longer use.". */
  readonly appsIntro: string;
  /** Connected apps page without any. Default "No application holds access to your account.". */
  readonly appsNone: string;
  /** Connected apps page, before an application's scopes. Default "Access:". */
  readonly appsAccess: string;
  /** Connected apps page ({date}: when the user first allowed it). Default "Connected since {date}". */
  readonly appsSince: string;
  /** Connected apps page ({date}: when it last got tokens). Default "Last used {date}". */
  readonly appsLastUsed: string;
  /** The button that revokes an application's access. Default "Revoke access". */
  readonly appsRevokeButton: string;
  /** After a revocation ({client}: the application). Default "{client} no longer has access to your account.". */
  readonly appsRevoked: string;
  /** After a revocation of an application that held no access any more. Default "That application no longer had access.". */
  readonly appsNothingToRevoke: string;
  /** Operations console: its name, in every page's title. Default "Operations console". */
  readonly consoleTitle: string;
  /** Operations console: the label of its navigation. Default "Console sections". */
  readonly consoleNav: string;
  /** Operations console: the overview section (health, charts). Default "Overview". */
  readonly consoleOverview: string;
  /** Operations console: the signing keys section. Default "Signing keys". */
  readonly consoleKeys: string;
  /** Operations console: the clients section. Default "Clients". */
  readonly consoleClients: string;
  /** Operations console: the users section. Default "Users". */
  readonly consoleUsers: string;
  /** Operations console: the audit trail section. Default "Audit trail". */
  readonly consoleAudit: string;
  /** Operations console: the sign-out button. Default "Sign out of the console". */
  readonly consoleSignOut: string;
  /** Operations console: a signed-in user the host does not designate. Default "Your account is not allowed to use the operations console.". */
  readonly consoleRefused: string;
  /** Operations console: the admin API refused an action ({error}: its error code). Default "The admin API refused the request: {error}.". */
  readonly consoleApiError: string;
  /** Operations console: a sign-in callback without its pending sign-in. Default "The sign-in to the console has expired or was started elsewhere. Open the console again.". */
  readonly consoleSignInExpired: string;
  /** Operations console: the health heading. Default "Health". */
  readonly consoleHealth: string;
  /** Operations console: health `ok`. Default "Everything is working.". */
  readonly consoleStatusOk: string;
  /** Operations console: health `degraded`. Default "Degraded: check the storage engine and the revocation channel.". */
  readonly consoleStatusDegraded: string;
  /** Operations console: the storage engine's line of the health. Default "Storage engine". */
  readonly consoleEngine: string;
  /** Operations console: the engine answers ({ms}: its latency). Default "reachable, {ms} ms". */
  readonly consoleReachable: string;
  /** Operations console: the engine does not answer. Default "unreachable". */
  readonly consoleUnreachable: string;
  /** Operations console: the pushed revocations channel's lag. Default "Revocation channel lag". */
  readonly consoleRevocationLag: string;
  /** Operations console: a part that is off (no pushed revocations). Default "not used". */
  readonly consoleNotUsed: string;
  /** Operations console: the key that signs now. Default "Signing key". */
  readonly consoleSigningKey: string;
  /** Operations console: the chart of tokens issued per grant type. Default "Tokens issued per grant type, last hour". */
  readonly consoleTokensChart: string;
  /** Operations console: the chart of refusals by reason. Default "Refusals by reason, last hour". */
  readonly consoleRefusalsChart: string;
  /** Operations console: a chart's text alternative ({total}: the hour's total; {parts}: per series). Default "{total} in the last hour: {parts}.". */
  readonly consoleChartTotal: string;
  /** Operations console: an empty chart. Default "Nothing in the last hour.". */
  readonly consoleNoData: string;
  /** Operations console: keys table, the key id column. Default "Key id". */
  readonly consoleKid: string;
  /** Operations console: keys table, the algorithm column. Default "Algorithm". */
  readonly consoleAlgorithm: string;
  /** Operations console: keys table, the state column. Default "State". */
  readonly consoleState: string;
  /** Operations console: a since-when column. Default "Since". */
  readonly consoleSince: string;
  /** Operations console: an until-when column. Default "Until". */
  readonly consoleUntil: string;
  /** Operations console: key state `next`. Default "next". */
  readonly consoleStateNext: string;
  /** Operations console: key state `signing`. Default "signing". */
  readonly consoleStateSigning: string;
  /** Operations console: key state `retired`. Default "retired". */
  readonly consoleStateRetired: string;
  /** Operations console: key state `revoked`. Default "revoked". */
  readonly consoleStateRevoked: string;
  /** Operations console: before the sentence saying why the signing key signs. Default "Why this key signs:". */
  readonly consoleWhy: string;
  /** Operations console: the keys' timeline. Default "Key timeline". */
  readonly consoleTimeline: string;
  /** Operations console: the rotate button. Default "Rotate keys". */
  readonly consoleRotate: string;
  /** Operations console: the rotate form's checkbox (what signing at once costs). Default "Sign with the new key at once (relying parties that cached the key set refuse its tokens until they fetch it again)". */
  readonly consoleRotateNow: string;
  /** Operations console: a revoke button. Default "Revoke". */
  readonly consoleRevoke: string;
  /** Operations console: after a rotation. Default "Keys rotated.". */
  readonly consoleRotated: string;
  /** Operations console: after a key's revocation ({kid}). Default "Key {kid} revoked.". */
  readonly consoleKeyRevoked: string;
  /** Operations console: clients table, the id column. Default "Client id". */
  readonly consoleClientId: string;
  /** Operations console: a name column. Default "Name". */
  readonly consoleName: string;
  /** Operations console: clients table, where a client comes from. Default "Origin". */
  readonly consoleOrigin: string;
  /** Operations console: clients table, the grant types column. Default "Grant types". */
  readonly consoleGrantTypes: string;
  /** Operations console: a creation time column. Default "Created". */
  readonly consoleCreated: string;
  /** Operations console: the mark of a self-registered client. Default "self-registered". */
  readonly consoleSelfRegistered: string;
  /** Operations console: a client the host configured. Default "configured by the host". */
  readonly consoleHostClient: string;
  /** Operations console: the delete button of a self-registered client. Default "Delete". */
  readonly consoleDelete: string;
  /** Operations console: after a client's deletion ({client}). Default "Client {client} deleted.". */
  readonly consoleClientDeleted: string;
  /** Operations console: the user search field. Default "User id or username". */
  readonly consoleSearchLabel: string;
  /** Operations console: the user search button. Default "Search". */
  readonly consoleSearch: string;
  /** Operations console: a search without results. Default "No user found.". */
  readonly consoleNoUsers: string;
  /** Operations console: a user's sessions. Default "Sessions". */
  readonly consoleSessions: string;
  /** Operations console: a user's grants. Default "Grants". */
  readonly consoleGrants: string;
  /** Operations console: a user without sessions. Default "No live session.". */
  readonly consoleNoSessions: string;
  /** Operations console: a user without grants. Default "No live grant.". */
  readonly consoleNoGrants: string;
  /** Operations console: sessions table, the last activity column. Default "Last seen". */
  readonly consoleLastSeen: string;
  /** Operations console: an expiry column. Default "Ends". */
  readonly consoleEnds: string;
  /** Operations console: grants table, the scope column. Default "Scope". */
  readonly consoleScope: string;
  /** Operations console: grants table, the last use column. Default "Last used". */
  readonly consoleLastUsed: string;
  /** Operations console: the button that revokes everything of a user. Default "Revoke all of this user's sessions and tokens". */
  readonly consoleRevokeUser: string;
  /** Operations console: after a session's revocation. Default "Session revoked.". */
  readonly consoleSessionRevoked: string;
  /** Operations console: after a grant's revocation. Default "Grant revoked: its refresh tokens and access tokens no longer work.". */
  readonly consoleGrantRevoked: string;
  /** Operations console: after a user's revocation. Default "Everything issued to the user so far is revoked.". */
  readonly consoleUserRevoked: string;
  /** Operations console: the audit filter button. Default "Filter". */
  readonly consoleFilter: string;
  /** Operations console: audit filter and column, the event type. Default "Event type". */
  readonly consoleEventType: string;
  /** Operations console: audit filter and column, the subject. Default "Subject". */
  readonly consoleSubject: string;
  /** Operations console: audit filter, how many records. Default "At most". */
  readonly consoleLimit: string;
  /** Operations console: audit column, the time. Default "Time". */
  readonly consoleTime: string;
  /** Operations console: audit column, success or failure (and why). Default "Outcome". */
  readonly consoleOutcome: string;
  /** Operations console: audit column, the rest of the record. Default "Details". */
  readonly consoleDetails: string;
  /** Operations console: an audit trail without matching records. Default "No record matches.". */
  readonly consoleNoRecords: string;
  /** Operations console: a table's actions column. Default "Actions". */
  readonly consoleActions: string;
  /** Operations console: the present on the charts' time axes. Default "now". */
  readonly consoleNow: string;
  /** Operations console: a user's details heading ({user}). Default "User {user}". */
  readonly consoleUser: string;
  /** Operations console: who is signed in ({user}). Default "Signed in as {user}". */
  readonly consoleSignedInAs: string;
  /** Operations console: the empty choice of a filter. Default "all". */
  readonly consoleAll: string;
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
