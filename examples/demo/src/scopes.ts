/**
 * What the demo's own scope allows, in words: the built-in consent and device pages show it instead
 * of the scope string (`ui.scopeDescriptions`), and so does the portal's own consent page.
 */
export const DEMO_SCOPE_DESCRIPTIONS: Readonly<Record<string, string>> = Object.freeze({
  'tickets:read': 'Read your support tickets',
});
