// Settings read from the environment, with their defaults, in one object.
export const defaults = {
  baseUrl: 'http://localhost:3000',
  port: 3000,
};

/**
 * `BASE_URL` wins; on Netlify the site's own address is used (the deploy's address for previews),
 * so nobody has to type it; otherwise the local default.
 */
export function baseUrlFromEnv(env: NodeJS.ProcessEnv = process.env): string {
  const netlify =
    env.NETLIFY === 'true' ? (env.CONTEXT === 'production' ? env.URL : env.DEPLOY_PRIME_URL ?? env.URL) : undefined;
  const raw = env.BASE_URL || netlify || defaults.baseUrl;
  return checkBaseUrl(raw);
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
