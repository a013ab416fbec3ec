/** Paths of the user-facing pages, relative to the instance base path. */
export const PAGE_PATHS = {
  /** `POST`: the login form of an authorization request. */
  login: '/login',
  /** `POST`: the consent form of an authorization request. */
  consent: '/consent',
  /** `GET`: the logout confirmation page; `POST`: logs out. */
  logout: '/logout',
  /** `GET`: the device verification page (RFC 8628 `verification_uri`): the code form; `POST`: the code. */
  device: '/device',
  /** `POST`: the login form of the device verification page. */
  deviceLogin: '/device/login',
  /** `GET` (after login) and `POST` (the decision): the device confirmation page. */
  deviceConfirm: '/device/confirm',
} as const;
