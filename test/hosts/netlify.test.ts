// Netlify: `netlify dev` (netlify-cli, from hosts/) offline over a site folder laid out as the
// repository is, with the root netlify.toml copied in unchanged. Run twice: with dist/ as the
// build leaves it, holding the Cloudflare `_headers` / `_redirects` that Netlify reads as well,
// and with dist/ without them, so that netlify.toml is shown to be complete on its own. Lists are
// paged by the function in hosts/netlify/functions/, which netlify dev bundles and runs offline.
import fs from 'node:fs/promises';
import path from 'node:path';
import { projectRoot } from '../../build/paths.ts';
import { describeHost, site } from './behaviour.ts';
import { cannotRun, freePort, unavailable } from './processes.ts';
import { hostBin, hostFiles } from './site.ts';

const NETLIFY = hostBin('netlify');
const reason = unavailable('netlify-cli', cannotRun(NETLIFY, ['--version']), 'npm ci --prefix hosts');

const variants = [
  { name: 'with the Cloudflare files in dist/', folder: 'netlify-full', drop: [] as string[] },
  { name: 'netlify.toml alone', folder: 'netlify-toml-only', drop: hostFiles.cloudflare.map((f) => path.basename(f)) },
];

for (const variant of variants) {
  describeHost(
    `Netlify (netlify dev, ${variant.name})`,
    reason,
    async () => {
      const root = path.join(site().root, variant.folder);
      // A copy of the files (the build's dist/ may be a link to the build it points at).
      await fs.cp(await fs.realpath(site().dist), path.join(root, 'dist'), { recursive: true, dereference: true });
      for (const name of variant.drop) await fs.rm(path.join(root, 'dist', name));
      await fs.copyFile(hostFiles.netlifyToml, path.join(root, 'netlify.toml'));
      // The function netlify.toml names, and the paging module it imports, where the repository has them.
      for (const rel of hostFiles.netlifyFunctionSources)
        await fs.cp(path.join(projectRoot, rel), path.join(root, rel), { recursive: true });
      const [port, staticPort] = [await freePort(), await freePort()];
      return {
        command: NETLIFY,
        args: [
          'dev',
          '--offline',
          '--internal-disable-edge-functions',
          '--skip-gitignore',
          '--port',
          String(port),
          '--staticServerPort',
          String(staticPort),
        ],
        cwd: root,
        env: { XDG_CONFIG_HOME: path.join(root, 'config'), BROWSER: 'none', NO_UPDATE_NOTIFIER: '1' },
        url: `http://127.0.0.1:${port}`,
      };
    },
    {
      apiNotFoundContentType:
        'netlify dev writes its 404 page with the file type (text/html) over the Content-Type header that netlify.toml sets for /api/*; Netlify itself lets custom headers set Content-Type',
      ndjsonContentType:
        'netlify dev sends the type its static server gives a file (application/octet-stream for .ndjson) over the Content-Type header that netlify.toml sets; Netlify itself lets custom headers set Content-Type',
      ignoresRanges: 'netlify dev answers every request for a file with all of it, Range or not',
    },
    'pages',
  );
}
