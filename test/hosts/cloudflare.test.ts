// Cloudflare Pages: `wrangler pages dev` (wrangler, from hosts/, with the workerd runtime its npm
// package ships) offline over dist/, which holds hosts/cloudflare/_headers, _redirects and
// _routes.json, and the worker the build bundles (_worker.js), which pages lists.
import path from 'node:path';
import { describeHost, site } from './behaviour.ts';
import { cannotRun, freePort, unavailable } from './processes.ts';
import { hostBin } from './site.ts';

const WRANGLER = hostBin('wrangler');
const reason = unavailable('wrangler', cannotRun(WRANGLER, ['--version']), 'npm ci --prefix hosts');

describeHost(
  'Cloudflare Pages (_headers, _redirects, wrangler pages dev)',
  reason,
  async () => {
    const { root, dist } = site();
    const [port, inspector] = [await freePort(), await freePort()];
    return {
      command: WRANGLER,
      args: [
        'pages',
        'dev',
        dist,
        '--ip',
        '127.0.0.1',
        '--port',
        String(port),
        '--inspector-port',
        String(inspector),
        // A date the workerd shipped with this wrangler supports: it refuses dates after its own.
        '--compatibility-date',
        '2025-01-01',
        '--persist-to',
        path.join(root, 'wrangler-state'),
        '--show-interactive-dev-session=false',
        '--log-level',
        'warn',
      ],
      cwd: root,
      env: {
        XDG_CONFIG_HOME: path.join(root, 'config'),
        WRANGLER_SEND_METRICS: 'false',
        WRANGLER_LOG_PATH: path.join(root, 'wrangler-logs'),
      },
      url: `http://127.0.0.1:${port}`,
    };
  },
  { ignoresRanges: 'wrangler pages dev answers every request for a file with all of it, Range or not' },
  'pages',
);
