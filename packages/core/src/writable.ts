/**
 * `T` with its members writable: for a record built member by member (the optional ones only when
 * set) before it is handed on as the read-only `T`. Conditional spreads (`...(x === undefined ? {}
 * : { x })`) allocate an object each and copy it, on paths that run on every token request.
 */
export type Writable<T> = { -readonly [K in keyof T]: T[K] };
