/**
 * Where `gatehouse-demo` keeps its sign-in: one JSON file in the user's config directory, readable
 * by the user alone (file mode 0600, directory 0700), written atomically (a temporary file renamed
 * over the old one), so that a crash never leaves half a token set and no other user on the machine
 * can read the refresh token.
 */
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseTokenSet, type TokenSet, type TokenStore } from '@gatehousejs/client';

/** The config directory of the tool, by platform convention (`GATEHOUSE_DEMO_CONFIG_DIR` wins). */
export function configDirectory(
  env: Readonly<Record<string, string | undefined>> = process.env,
  platform: NodeJS.Platform = process.platform,
  home: string = homedir(),
): string {
  if (env.GATEHOUSE_DEMO_CONFIG_DIR) return env.GATEHOUSE_DEMO_CONFIG_DIR;
  if (platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'gatehouse-demo');
  if (platform === 'darwin') return join(home, 'Library', 'Application Support', 'gatehouse-demo');
  // XDG Base Directory Specification: $XDG_CONFIG_HOME, else ~/.config.
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'gatehouse-demo');
}

/** What the file holds: whose tokens they are, and the token set (with the refresh token). */
interface CredentialsFile {
  readonly issuer: string;
  readonly clientId: string;
  readonly tokens: TokenSet;
}

/**
 * A `@gatehousejs/client` token store backed by `{directory}/credentials.json`, for one issuer and
 * client: a file of another issuer or client reads as signed out.
 */
export function fileTokenStore(
  directory: string,
  issuer: string,
  clientId: string,
): TokenStore & { path: string } {
  const path = join(directory, 'credentials.json');
  return {
    path,
    async get() {
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
      try {
        const file = JSON.parse(text) as Partial<CredentialsFile>;
        if (file.issuer !== issuer || file.clientId !== clientId) return null;
        return parseTokenSet(file.tokens);
      } catch {
        return null;
      }
    },
    async set(tokens) {
      if (tokens === null) {
        await rm(path, { force: true });
        return;
      }
      await mkdir(directory, { recursive: true, mode: 0o700 });
      const file: CredentialsFile = { issuer, clientId, tokens };
      const temporary = `${path}.${process.pid}.tmp`;
      // `mode` applies when the file is created: it is new, so never readable by others, even briefly.
      await writeFile(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600, flag: 'w' });
      await chmod(temporary, 0o600);
      await rename(temporary, path);
    },
  };
}
