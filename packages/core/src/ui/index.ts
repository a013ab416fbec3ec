/**
 * `@gatehousejs/core/ui`: for hosts that shape the pages a person sees, not needed by a host that
 * keeps the built-in ones. The `ui` option group's types, the page renderers and the models they
 * receive, the built-in pages (to wrap), their message catalog and `escapeHtml`, and the interaction
 * API of a host that serves its own sign-in and consent pages (`gatehouse.interactions`,
 * {@link InteractionError}). Runtime-neutral, like the main entry.
 * @packageDocumentation
 */
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
  ConsentGiven,
  ConsentMemory,
  ConsentOptions,
  PageSourceOptions,
  UiOptions,
  UiTexts,
} from '../options.js';
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
