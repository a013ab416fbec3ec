/** The Auth API (`authApi` options): on or off, its tokens' lifetime and scope. */
export interface AuthApiSettings {
  readonly enabled: boolean;
  readonly tokenTtl: number;
  readonly scope: string;
}
