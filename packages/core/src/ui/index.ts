/**
 * `@gatehousejs/core/ui`: for hosts that shape the pages a person sees, not needed by a host that
 * keeps the built-in ones. The `ui` option group's types, the page renderers and the models they
 * receive, the built-in pages (to wrap), their message catalog and `escapeHtml`; the interaction
 * API of a host that serves its own sign-in and consent pages (`interactions`,
 * `gatehouse.interactions`, {@link InteractionError}); what a host's own account pages list and
 * revoke (`gatehouse.listSessions`, `listGrants`, `connectedApps`, `revokeSession`,
 * `revokeGrant`, `revokeApp`, `revokeUser`); and what a host's own approval page and
 * authentication device use for CIBA (the `ciba` option group, `gatehouse.ciba`).
 * Runtime-neutral, like the main entry.
 * @packageDocumentation
 */
export type { ConnectedApp } from '../account/connected-apps.js';
export type { CibaApi, CibaApproval, CibaPendingRequest } from '../oauth2/ciba/feature.js';
export { InteractionError, type InteractionErrorCode } from '../oauth2/interaction/interaction-error.js';
export type {
  ConsentResult,
  HostUser,
  InteractionDetails,
  InteractionRedirect,
  InteractionResult,
  InteractionStep,
  Interactions,
} from '../oauth2/interaction/types.js';
export type {
  CibaNotification,
  CibaOptions,
  CibaPingOptions,
  ConsentGiven,
  ConsentMemory,
  ConsentOptions,
  InteractionOptions,
  PageSourceOptions,
  UiOptions,
  UiTexts,
} from '../options.js';
export type { RevokeGrantOptions, UserGrant } from '../revocation/user-grants.js';
export type { RevokeUserOptions } from '../revocation/user-revocation.js';
export type { UserSession } from '../session/user-sessions.js';
export { defaultConsentPage } from './consent-page.js';
export { defaultEndSessionPage } from './end-session-page.js';
export { defaultErrorPage } from './error-page.js';
export { escapeHtml } from './escape.js';
export { BUILT_IN_STYLESHEET } from './layout.js';
export { defaultLoginPage } from './login-page.js';
export { defaultLogoutPage } from './logout-page.js';
export { BUILT_IN_MESSAGES, type LoginErrorCode } from './messages.js';
export { SCOPE_DESCRIPTIONS as BUILT_IN_SCOPE_DESCRIPTIONS } from './texts.js';
export type {
  ConsentPageModel,
  ConsentPageRenderer,
  EndSessionPageModel,
  EndSessionPageRenderer,
  ErrorPageModel,
  ErrorPageRenderer,
  LoginPageModel,
  LoginPageRenderer,
  LogoutPageModel,
  LogoutPageRenderer,
  PageContext,
  PageHtml,
  PageTexts,
} from './types.js';
