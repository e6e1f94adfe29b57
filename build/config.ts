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
  return raw.replace(/\/+$/, '');
}

export function portFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const port = Number(env.PORT ?? defaults.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number, got "${env.PORT}"`);
  return port;
}
