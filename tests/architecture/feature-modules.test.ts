/**
 * Feature modules (packages/core/src/feature.ts): a feature folder imports the shared core and its
 * own folder only — never another feature's files, the composition root or an entry point — and the
 * rest of the core reaches a feature only through its `feature.ts` (what the composition root
 * lists) and the modules it declares public below. Each remaining crossing is listed here with the
 * reason it still exists, so that none is added unseen.
 */
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { importGraph, sourceFiles } from './import-graph';

const root = fileURLToPath(new URL('../../', import.meta.url));
const core = join(root, 'packages/core/src/');
const graph = importGraph(sourceFiles(core));
const inCore = (file: string) => relative(core, file).replaceAll('\\', '/');

/** The feature folders (below packages/core/src), each with the files others may import. */
const FEATURES: Readonly<Record<string, readonly string[]>> = {
  'account/': [
    'feature.ts',
    // The instance's host API (`gatehouse.connectedApps`, `gatehouse.revokeApp`) serves a host's
    // own account page whether or not the built-in page is on.
    'connected-apps.ts',
  ],
  'admin/': [
    'feature.ts',
    // Its recorder is an audit sink of the instance's emitter, which the composition root builds
    // before the features: the root resolves the admin settings (and the recorder) with the rest.
    'settings.ts',
  ],
  'console/': [
    'feature.ts',
    // The console's own client is in the client directory, which the composition root builds
    // before the features (the authorization endpoint must find it like any client).
    'internal-client.ts',
  ],
  // RFC 9396: its service is what the authorization flow, PAR and the grants check details with;
  // the instance settings type it (`feature.ts` of the root, which the feature itself imports).
  'oauth2/authorization-details/': ['feature.ts', 'settings.ts'],
  // RFC 9101: the authorization flow and PAR verify `request` with it; the instance settings type it.
  'oauth2/request-objects/': ['feature.ts', 'settings.ts'],
  'oauth2/device/': [
    'feature.ts',
    // The device sign-in of the interaction module looks up the authorization it is for (to be a
    // flow the device feature registers with the interaction module).
    'device-records.ts',
    'user-code.ts',
  ],
  'oauth2/registration/': [
    'feature.ts',
    // The folder also holds client ID metadata documents, which are not a feature yet: the
    // composition root builds them into the client directory (their settings, the `clientJwks`
    // fetch budget and the id test), and the context types them.
    'settings.ts',
    'client-id-url.ts',
    'metadata-documents.ts',
  ],
  'oidc/backchannel-logout/': [
    'feature.ts',
    // Resolved with the instance's settings: dynamic registration reads them for
    // `backchannel_logout_uri` (`FeatureShared.backchannelLogout`).
    'settings.ts',
  ],
  'oauth2/ciba/': [
    'feature.ts',
    // The types of `gatehouse.ciba`, which the feature parts (`feature.ts` of the core) carry.
    'api.ts',
  ],
  'oauth2/par/': [
    'feature.ts',
    // The authorization endpoint resolves a pushed `request_uri` and ends its flight when the code
    // is issued; the interactions that resume it keep the flight's parameters.
    'pushed-requests.ts',
  ],
};

/** The composition root and the entry points: no feature imports them. */
const ROOTS = [
  'resolve-options.ts',
  'gatehouse.ts',
  'index.ts',
  'engine/index.ts',
  'adapter/index.ts',
  'node/index.ts',
];

const featureOf = (file: string) => Object.keys(FEATURES).find((folder) => inCore(file).startsWith(folder));

describe('feature modules', () => {
  it('import the shared core and their own folder only', () => {
    const crossings = [...graph].flatMap(([file, targets]) => {
      const own = featureOf(file);
      if (own === undefined) return [];
      return targets
        .filter((target) => {
          const other = featureOf(target);
          return (other !== undefined && other !== own) || ROOTS.includes(inCore(target));
        })
        .map((target) => `${inCore(file)} → ${inCore(target)}`);
    });
    expect(crossings).toEqual([]);
  });

  it('are reached from outside only through their declared modules', () => {
    const crossings = [...graph].flatMap(([file, targets]) => {
      const own = featureOf(file);
      return targets
        .filter((target) => {
          const feature = featureOf(target);
          return (
            feature !== undefined &&
            feature !== own &&
            !FEATURES[feature]!.includes(inCore(target).slice(feature.length))
          );
        })
        .map((target) => `${inCore(file)} → ${inCore(target)}`);
    });
    expect(crossings).toEqual([]);
  });

  it('are listed by the composition root through their feature.ts', () => {
    const root = graph.get(join(core, 'resolve-options.ts')) ?? [];
    for (const folder of Object.keys(FEATURES)) expect(root.map(inCore)).toContain(`${folder}feature.ts`);
  });
});
