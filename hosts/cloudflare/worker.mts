// Cloudflare Pages, advanced mode: the build bundles this file into the output as `_worker.js`.
// `_routes.json` sends it only requests under /api/v2/. A list asked for with `offset` or `limit`
// is paged from the kind's full list, read from the static files (ASSETS); every other request is
// passed to them unchanged, so `_headers` and `_redirects` still decide it.
import { pageResponse } from '../../build/site/paging.ts';

/** The one binding a Pages worker is given for its static files. */
interface Env {
  ASSETS: { fetch: (request: Request | string) => Promise<Response> };
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    if (request.method !== 'GET' && request.method !== 'HEAD') return env.ASSETS.fetch(request);
    const url = new URL(request.url);
    const paged = await pageResponse(request, (rel) => env.ASSETS.fetch(new URL(`/${rel}`, url).href));
    return paged ?? env.ASSETS.fetch(request);
  },
};
