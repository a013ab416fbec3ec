import type { Feature, InstanceAnswer } from '../feature.js';
import { consoleRoutes } from './pages.js';
import { consoleSettings } from './settings.js';

export { CONSOLE_CLIENT_ID } from './settings.js';

/**
 * The operations console as a feature (`adminConsole` option): server-rendered pages at
 * `{base}/admin/` over the admin API, for the users the host's `admin.authorize` hook designates,
 * signed in through the instance itself (code flow with PKCE of its own client,
 * `internal-client.ts`). On whenever the admin API is, unless `adminConsole: false`. Its pages call
 * the API through the instance's own handler, which the feature receives once the instance exists.
 */
export const operationsConsoleFeature: Feature = {
  name: 'operations console',
  setup(options, shared) {
    const settings = consoleSettings(options, shared.issuer, shared.admin?.scope);
    if (settings === undefined) return {};
    let bound: InstanceAnswer | undefined;
    const runtime = {
      settings,
      answer(): InstanceAnswer {
        if (bound === undefined) throw new Error('the operations console was not bound to its instance');
        return bound;
      },
    };
    return {
      routes: consoleRoutes(runtime),
      bind(answer) {
        bound = answer;
      },
    };
  },
};
