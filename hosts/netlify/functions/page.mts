// Netlify: every list is answered by this function (its `config.path`, which Netlify matches before
// any rewrite rule). Asked for with `offset` or `limit`, it pages the kind's full list; otherwise
// it answers that list's file as it is. Both are read from the site's own static files.
import { pageResponse, pageSources } from '../../../build/site/paging.ts';

export default async function page(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const paged = await pageResponse(request, (rel) => fetch(new URL(`/${rel}`, url)));
  if (paged) return paged;
  const kind = url.pathname.split('/')[3] ?? '';
  return fetch(new URL(`/${pageSources.list(kind)}`, url), { method: request.method });
}

export const config = { path: ['/api/v2/:kind', '/api/v2/:kind/'], excludedPath: ['/api/v2/openapi.json', '/api/v2/index.json'] };
