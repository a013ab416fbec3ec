/**
 * What an error code means for the person in front of the browser, in plain words, shown on the
 * error page above the specific description. The code itself is shown too (for support requests),
 * but never anything internal: 5xx pages show only these words (see `pages.ts`).
 */
const EXPLANATIONS: Readonly<Record<string, string>> = {
  invalid_request:
    'The application sent a request that cannot be processed. Go back to the application and try again.',
  unauthorized_client: 'This application is not allowed to make this request.',
  unsupported_response_type: 'This application asked for something this server does not offer.',
  invalid_scope: 'The application asked for access that is not available.',
  access_denied: 'Access was denied.',
  login_required: 'You need to sign in first.',
  consent_required: 'You need to allow the application access first.',
  invalid_target: 'The application asked for access to a service this server does not know.',
  forbidden: 'The request was refused to protect your account.',
  unauthorized: 'You need to sign in first.',
  not_found: 'This page does not exist.',
  method_not_allowed: 'This page cannot be used that way.',
  payload_too_large: 'The form sent was too large.',
  too_many_requests: 'Too many attempts. Wait a moment and try again.',
  expired_token: 'The code has expired. Start again on your device.',
  server_error: 'The server could not complete the request. Try again later.',
  temporarily_unavailable: 'The service is temporarily unavailable. Try again in a moment.',
};

/** The plain-words explanation of an error code (a generic one for codes without an entry). */
export function errorExplanation(code: string): string {
  return Object.hasOwn(EXPLANATIONS, code) ? EXPLANATIONS[code]! : 'The request could not be completed.';
}
