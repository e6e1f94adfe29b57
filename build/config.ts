// Settings read from the environment, with their defaults, in one object.
import { UsageError } from './guard.mjs';

export { UsageError };
export const defaults = {
  baseUrl: 'http://localhost:3000',
  port: 3000,
};

/**
 * `BASE_URL` wins; on Netlify, Vercel and Cloudflare Pages the deploy's own address is used, so
 * nobody has to type it; otherwise the local default.
 */
export function baseUrlFromEnv(): string {
  return checkBaseUrl(process.env.BASE_URL || hostUrl() || defaults.baseUrl);
}

/** The address a hosting service gives the build it runs, where it gives one. */
function hostUrl(env = process.env): string | undefined {
  if (env.NETLIFY === 'true') return env.CONTEXT === 'production' ? env.URL : (env.DEPLOY_PRIME_URL ?? env.URL);
  if (env.VERCEL === '1') {
    const host = env.VERCEL_ENV === 'production' ? env.VERCEL_PROJECT_PRODUCTION_URL : (env.VERCEL_BRANCH_URL ?? env.VERCEL_URL);
    return host ? `https://${host}` : undefined;
  }
  if (env.CF_PAGES === '1') return env.CF_PAGES_URL; // the deployment's own address; a custom domain still wants BASE_URL
  return undefined;
}

/**
 * The characters a url may hold as they are (RFC 3986: unreserved, sub-delimiters, ':', '@', '/',
 * brackets for an IPv6 host), and '%' starting an escape. BASE_URL is written into every link as it
 * is given, so anything else (a space, a quote, a letter beyond ASCII) would break every link.
 */
const URL_CHARACTER = /[A-Za-z0-9\-._~!$&'()*+,;=:@/[\]]|%[0-9A-Fa-f]{2}/y;

/**
 * An absolute http(s) address without a trailing slash, checked whole before any record is read;
 * anything else is a usage error naming BASE_URL and what is wrong with it.
 */
export function checkBaseUrl(raw: string): string {
  const refuse = (why: string) =>
    new UsageError(`BASE_URL ${why}; it should look like https://example.org or https://example.org/api (got ${shown(raw)})`);
  const trimmed = raw.replace(/\/+$/, '');
  if (/[?#]/.test(raw)) throw refuse('must not hold a query (?) or a fragment (#): records add their paths to it');
  const bad = firstOutsideUrl(raw);
  if (bad !== undefined) throw refuse(`may hold only characters a url holds, ${describeAt(raw, bad)} is not one (percent-encode it)`);
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {}
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname) throw refuse('must be an absolute http(s) address');
  if (url.username || url.password) throw refuse('must not hold a user name or password: every record would publish it');
  const read = url.href.replace(/\/+$/, '');
  if (read.toLowerCase() !== trimmed.toLowerCase() || /[[\]]/.test(url.pathname))
    throw refuse(`is not written as a url is: it reads as "${read}"`);
  return trimmed;
}

/** Where the first character a url cannot hold as it is stands in `raw`, if anywhere. */
function firstOutsideUrl(raw: string): number | undefined {
  for (let at = 0; at < raw.length; at = URL_CHARACTER.lastIndex) {
    URL_CHARACTER.lastIndex = at;
    if (!URL_CHARACTER.test(raw)) return at;
  }
  return undefined;
}

const NAMED: Record<string, string> = { ' ': 'a space', '"': 'a double quote', '%': 'a % not starting an escape such as %20' };

function describeAt(raw: string, at: number): string {
  const char = String.fromCodePoint(raw.codePointAt(at)!);
  const code = `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
  return `${NAMED[char] ?? `${shown(char)} (${code})`} at character ${at + 1}`;
}

/**
 * The date the API states as its own (`/api/v2/meta/`'s `deploy_date`, in seconds since 1970):
 * `SOURCE_DATE_EPOCH`, as reproducible builds take their date. Without it, 0: the output depends on
 * its inputs alone, never on the clock, so that two builds of the same data give the same bytes and
 * a rebuild that changes nothing writes nothing. A deploy sets it (to its commit's time, say).
 */
export function sourceDateFromEnv(): string {
  const raw = process.env.SOURCE_DATE_EPOCH;
  if (raw === undefined || raw === '') return '0';
  if (!/^(0|[1-9][0-9]{0,15})$/.test(raw)) throw new UsageError(`SOURCE_DATE_EPOCH must be whole seconds since 1970, got ${shown(raw)}`);
  return raw;
}

export function portFromEnv(): number {
  // Empty is unset, as for HOST and BASE_URL.
  const port = portNumber(process.env.PORT || String(defaults.port));
  if (port === undefined) throw new UsageError(`PORT must be a port number, got ${shown(process.env.PORT!)}`);
  return port;
}

/**
 * A port written as people write one, digits alone, from 0 to 65535; undefined for anything else.
 * `Number` would take `1e3`, `0x10` or a blank, which nobody means as a port (a blank is 0, any).
 */
export function portNumber(text: string): number | undefined {
  if (!/^[0-9]{1,5}$/.test(text)) return undefined;
  const port = Number(text);
  return port <= 65535 ? port : undefined;
}

/** A value as typed, with a line break or another control character escaped, so that a message naming it stays one line. */
export const escaped = (raw: string): string => JSON.stringify(raw).slice(1, -1);

/** A setting's value as typed, quoted and `escaped`. */
export const shown = (raw: string): string => `"${escaped(raw)}"`;
