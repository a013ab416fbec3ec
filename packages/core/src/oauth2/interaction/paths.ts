/** Paths of the interaction routes, relative to the instance base path. */
export const INTERACTION_PATHS = {
  /** `GET ?interaction=<reference>`: where `finish` sends the browser; continues the authorization request. */
  resume: '/interaction/resume',
} as const;
