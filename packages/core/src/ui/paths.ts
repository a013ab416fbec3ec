/** Paths of the user-facing pages, relative to the instance base path. */
export const PAGE_PATHS = {
  /** `GET ?interaction=<reference>`: the built-in login page of an interaction; `POST`: its form. */
  login: '/login',
  /** `GET ?interaction=<reference>`: the built-in consent page of an interaction; `POST`: its form. */
  consent: '/consent',
  /** `GET`: the logout confirmation page; `POST`: logs out. */
  logout: '/logout',
  /** `GET`: the device verification page (RFC 8628 `verification_uri`): the code form; `POST`: the code. */
  device: '/device',
  /** `GET` (after the sign-in) and `POST` (the decision): the device confirmation page. */
  deviceConfirm: '/device/confirm',
  /** `GET`: the signed-in user's connected apps (a sign-in first without a session); `POST`: revokes one. */
  connectedApps: '/account/apps',
  /**
   * `GET`: the signed-in user's pending backchannel authentication requests (CIBA); `POST`: a
   * decision (Allow / Deny).
   */
  approvals: '/approvals',
} as const;
