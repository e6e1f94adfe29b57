// Vercel: vercel.json checked against the schemas of Vercel's own @vercel/routing-utils (from
// hosts/), turned into Vercel's route table by the same package, and that table served over the
// built site by a model of Vercel's routing phases (vercel-model.ts) that must pass the shared
// assertions. No offline emulator of Vercel exists, so this is not a live test.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen } from '../../build/site/serve.ts';
import { hostBehaviour, site } from './behaviour.ts';
import { unavailable } from './processes.ts';
import { hostFiles, hostsDir } from './site.ts';
import { vercelModel, type VercelRoute } from './vercel-model.ts';

interface RoutingUtils {
  getTransformedRoutes: (config: object) => { routes: VercelRoute[] | null; error: { message: string } | null };
  rewritesSchema: object;
  headersSchema: object;
  redirectsSchema: object;
  cleanUrlsSchema: object;
  trailingSlashSchema: object;
}

function load(): { utils?: RoutingUtils; reason?: string } {
  try {
    return { utils: createRequire(path.join(hostsDir, 'package.json'))('@vercel/routing-utils') as RoutingUtils };
  } catch (err) {
    return { reason: (err as Error).message.split('\n')[0] };
  }
}
const { utils, reason } = load();
const skip = unavailable('@vercel/routing-utils', reason, 'npm ci --prefix hosts');

/** The top-level keys of vercel.json that Vercel documents for a project. */
const KNOWN_KEYS = new Set([
  '$schema',
  'buildCommand',
  'cleanUrls',
  'crons',
  'devCommand',
  'framework',
  'functions',
  'headers',
  'ignoreCommand',
  'images',
  'installCommand',
  'outputDirectory',
  'public',
  'redirects',
  'regions',
  'rewrites',
  'trailingSlash',
]);

describe.skipIf(skip)('Vercel (vercel.json, by a model of its routing)', () => {
  const config = JSON.parse(fs.readFileSync(hostFiles.vercelJson, 'utf8'));

  it('has the shape Vercel documents', () => {
    expect(Object.keys(config).filter((key) => !KNOWN_KEYS.has(key))).toEqual([]);
    expect(config).toMatchObject({ framework: null, buildCommand: 'npm run build -- --plain', outputDirectory: 'dist' });
    const ajv = new Ajv({ allErrors: true, strict: false });
    const schemas: Record<string, object> = {
      rewrites: utils!.rewritesSchema,
      headers: utils!.headersSchema,
      redirects: utils!.redirectsSchema,
      cleanUrls: utils!.cleanUrlsSchema,
      trailingSlash: utils!.trailingSlashSchema,
    };
    for (const [key, schema] of Object.entries(schemas)) {
      if (!(key in config)) continue;
      const check = ajv.compile(schema);
      expect(check(config[key]) ? [] : check.errors, `vercel.json ${key}`).toEqual([]);
    }
    expect(utils!.getTransformedRoutes(config).error).toBeNull();
  });

  let server: ReturnType<typeof vercelModel> | undefined;
  let url = '';
  beforeAll(async () => {
    const { routes } = utils!.getTransformedRoutes(config);
    server = vercelModel(site().dist, routes ?? []);
    url = await listen(server, 0);
  });
  afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));
  hostBehaviour(() => url, { ignoresRanges: "the model serves Vercel's routes and headers, not its file server's ranges" });
});
