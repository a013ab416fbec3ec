/** Paths of the interaction routes, relative to the instance base path. */
export const INTERACTION_PATHS = {
  /** `GET ?interaction=<reference>`: where `finish` sends the browser; continues the authorization request. */
  resume: '/interaction/resume',
  /** `GET`, `POST ?interaction=<reference>`: the built-in login and consent pages (`interactions.builtInPages`). */
  builtIn: '/interaction',
} as const;
