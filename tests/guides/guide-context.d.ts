/**
 * What the guides' code blocks take as given (`code-blocks.ts` checks every block with these in
 * scope): the names a short snippet uses without defining them, each with the type it has in a
 * real host. A block that imports or declares the name itself uses its own.
 *
 * Gatehouse's own functions are typed from the published declarations, so a snippet calling
 * `createGatehouse({ … })` without its import is still checked against the real options. The host's
 * things (its database, its session, its user) are `any` or minimal shapes: the guides' subject is
 * Gatehouse's API, not theirs.
 */
import type * as Client from '@gatehousejs/client';
import type * as Core from '@gatehousejs/core';
import type * as Adapter from '@gatehousejs/core/adapter';
import type * as Engine from '@gatehousejs/core/engine';
import type * as NodeEntry from '@gatehousejs/core/node';
import type * as Protect from '@gatehousejs/core/protect';
import type * as Postgres from '@gatehousejs/postgres';
import type * as Redis from '@gatehousejs/redis';
import type { Express } from 'express';
import type * as Jose from 'jose';
import type { Pool } from 'pg';

declare global {
  /** Stands for what a guide leaves out (`// …`, `…`): whatever type the place asks for. */
  function elided<T>(): T;

  // Gatehouse's functions, used by short snippets without their import.
  const createGatehouse: typeof Core.createGatehouse;
  const generateKeys: typeof Core.generateKeys;
  const hashClientSecret: typeof Core.hashClientSecret;
  const memoryClientStore: typeof Core.memoryClientStore;
  const ConfigurationError: typeof Core.ConfigurationError;
  type ConfigurationError = Core.ConfigurationError;
  type KeySigner = Core.KeySigner;
  const defineOperations: typeof Protect.defineOperations;
  const protectedResource: typeof Protect.protectedResource;
  const resourceServer: typeof Protect.resourceServer;
  type AuthenticateOptions = Protect.AuthenticateOptions;
  type Authenticator = Adapter.Authenticator;
  const withAuthentication: typeof Adapter.withAuthentication;
  const toGatehouseRequest: typeof NodeEntry.toGatehouseRequest;
  const sendWebResponse: typeof NodeEntry.sendWebResponse;
  const addressCheckingFetch: typeof NodeEntry.addressCheckingFetch;
  const redisEngine: typeof Redis.redisEngine;
  const postgresEngine: typeof Postgres.postgresEngine;
  const createClient: typeof Client.createClient;
  const isGatehouseClientError: typeof Client.isGatehouseClientError;
  const exportJWK: typeof Jose.exportJWK;
  const importSPKI: typeof Jose.importSPKI;
  type JWK = Jose.JWK;

  // The instance, the request and the options a snippet works with.
  const gatehouse: Core.Gatehouse;
  /** The instance, in the guides where the host's own app object is the star (`own-sign-in.md`). */
  const auth: Core.Gatehouse;
  const request: Request;
  const options: Core.GatehouseOptions;
  const issuer: string;
  const keys: Core.PrivateJwk[];
  const clients: Core.ClientStore;
  const users: Core.UserStore;
  const storage: Engine.GatehouseStorage;
  const myGrantStore: Engine.GrantStore;
  const myUserStore: Core.UserStore;
  const table: Protect.OperationTable;
  const myApiTable: Protect.OperationTable;
  const handler: Protect.OperationHandler;
  const resource: string;
  const resourceMetadata: string;
  const client: Client.GatehouseClient;
  const tokenStore: Client.TokenStore;
  const error: unknown;

  // Client registrations: redirect URIs, secrets and keys.
  const baseUrl: string;
  const redirectUri: string;
  const clientSecret: string;
  const state: string;
  const cb: string;
  const secret: string;
  const secret2: string;
  const secret3: string;
  const publicJwk: JWK;
  const privateJwk: JWK & { kid: string };

  // The host's side: its database, app, users and pages (shapes that are not Gatehouse's).
  // biome-ignore lint/suspicious/noExplicitAny: the host's database, whatever it is
  const db: any;
  // biome-ignore lint/suspicious/noExplicitAny: the host's user record
  const user: any;
  const app: Express;
  const express: typeof import('express');
  const pool: Pool;
  const userId: string;
  const requestId: string;
  /** The host's push service to a user's authentication device (CIBA). */
  const push: { send(userId: string, text: string, url: string): Promise<void> };
  /** A relying party's replay check of logout tokens (Back-Channel Logout §2.6). */
  function seenJti(jti: string): Promise<boolean>;
  /** A relying party ending its own sessions of a user or session (Back-Channel Logout §2.7). */
  function endLocalSessions(who: { iss: string; sub?: string; sid?: string }): Promise<void>;
  const url: string;
  const username: string;
  const password: string;
  const form: FormData;
  const passwordCheckedAt: number;
  function loginForm(action: string): string;
  function consentForm(details: import('@gatehousejs/core/ui').InteractionDetails, action: string): string;
  function showOtpForm(): Response;
  function clientsOf(instance: string): Core.ClientStore;
  function usersOf(instance: string): Core.UserStore;
  function lookUpUserBySubject(sub: string): Promise<string | null>;
  const badges: { redeem(code: string, clientId: string): Promise<{ userId: string } | null> };
  const authenticator: { check(code: FormDataEntryValue | null, secret: string): boolean };

  // AWS KMS, in the remote-signer example (its SDK is not a dependency here).
  const KeyId: string;
  const kms: {
    send(
      command: GetPublicKeyCommand | SignCommand,
    ): Promise<{ PublicKey?: Uint8Array; Signature?: Uint8Array }>;
  };
  class GetPublicKeyCommand {
    constructor(input: { KeyId: string });
  }
  class SignCommand {
    constructor(input: { KeyId: string; Message: Uint8Array; MessageType: 'RAW'; SigningAlgorithm: string });
  }
  function toPem(der: Uint8Array | undefined): string;
  function derToJose(der: Uint8Array, size: number): Uint8Array;
  const kmsSigner: Core.KeySigner;
}
