// Settings read from the environment, with their defaults, in one object.
export const defaults = {
  baseUrl: 'http://localhost:3000',
  port: 3000,
};

/**
 * `BASE_URL` wins; on Netlify, Vercel and Cloudflare Pages the deploy's own address is used, so
 * nobody has to type it; otherwise the local default.
 */
export function baseUrlFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  return checkBaseUrl(env.BASE_URL || hostUrl(env) || defaults.baseUrl);
}

/** The address a hosting service gives the build it runs, where it gives one. */
function hostUrl(env: NodeJS.ProcessEnv): string | undefined {
  if (env.NETLIFY === 'true') return env.CONTEXT === 'production' ? env.URL : (env.DEPLOY_PRIME_URL ?? env.URL);
  if (env.VERCEL === '1') {
    const host = env.VERCEL_ENV === 'production' ? env.VERCEL_PROJECT_PRODUCTION_URL : (env.VERCEL_BRANCH_URL ?? env.VERCEL_URL);
    return host ? `https://${host}` : undefined;
  }
  if (env.CF_PAGES === '1') return env.CF_PAGES_URL; // the deployment's own address; a custom domain still wants BASE_URL
  return undefined;
}

/** An absolute http(s) address without a trailing slash; anything else is refused plainly. */
export function checkBaseUrl(raw: string): string {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {}
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash) {
    throw new UsageError(`BASE_URL must be an absolute http(s) address such as https://example.org, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

/** A mistake in how the build was called, reported without a stack trace. */
export class UsageError extends Error {}

export function portFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const port = Number(env.PORT ?? defaults.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError(`PORT must be a port number, got "${env.PORT}"`);
  return port;
}
