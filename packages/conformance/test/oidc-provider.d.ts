// oidc-provider ships no types; the tests use it through a few calls (`new Provider`, `callback()`).
declare module 'oidc-provider';
