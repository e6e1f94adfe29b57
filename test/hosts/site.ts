// The site every host serves: the starter world built once (by setup.ts) into a temp folder's
// dist/, with the files the static hosts read from the output folder placed beside the API.
import fs from 'node:fs/promises';
import path from 'node:path';
import { apiPaths, projectRoot } from '../../build/paths.ts';

export const hostsDir = path.join(projectRoot, 'hosts');
export const hostBin = (name: string) => path.join(hostsDir, 'node_modules', '.bin', name);
export const hostFiles = {
  netlifyToml: path.join(projectRoot, 'netlify.toml'),
  vercelJson: path.join(projectRoot, 'vercel.json'),
  nginxConf: path.join(hostsDir, 'nginx.conf'),
  /** What Netlify bundles into its functions, relative to the repository root. */
  netlifyFunctionSources: ['hosts/netlify', 'build/site/paging.ts'],
  /** Read from the root of the output folder by Cloudflare Pages (and the first two by Netlify). */
  cloudflare: ['_headers', '_redirects', '_routes.json'].map((name) => path.join(hostsDir, 'cloudflare', name)),
};

/** The address the site was built for; hosts serve it elsewhere, so tests compare paths. */
export const SITE_BASE_URL = 'http://crs.test';

/**
 * What the build is to place in the output folder for the static hosts: their rules, and the JSON
 * 404 under the name the hosts look for (404.html). Placed here when the build has not; checked
 * against hosts/ when it has.
 */
export async function placeHostFiles(outDir: string): Promise<void> {
  const wanted = new Map<string, string>();
  for (const file of hostFiles.cloudflare) wanted.set(path.basename(file), await fs.readFile(file, 'utf8'));
  wanted.set('404.html', await fs.readFile(path.join(outDir, apiPaths.notFound), 'utf8'));
  for (const [name, body] of wanted) {
    const target = path.join(outDir, name);
    const built = await fs.readFile(target, 'utf8').catch(() => undefined);
    if (built === undefined) await fs.writeFile(target, body);
    else if (built !== body) throw new Error(`the build wrote ${name} unlike what the hosts need (${path.relative(projectRoot, target)})`);
  }
}

/** setup.ts provides the temp folder that holds `dist/`, laid out as the repository is for the hosts. */
declare module 'vitest' {
  export interface ProvidedContext {
    siteRoot: string;
  }
}
