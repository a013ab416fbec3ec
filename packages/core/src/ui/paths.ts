/** Paths of the user-facing pages, relative to the instance base path. */
export const PAGE_PATHS = {
  /** `POST`: the login form of an authorization request. */
  login: '/login',
  /** `POST`: the consent form of an authorization request. */
  consent: '/consent',
  /** `GET`: the logout confirmation page; `POST`: logs out. */
  logout: '/logout',
} as const;
