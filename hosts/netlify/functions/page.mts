// Netlify: every list is answered by this function (its `config.path`, which Netlify matches before
// any rewrite rule). Asked for with `offset` or `limit`, it pages the kind's full list; otherwise
// it answers that list's file as it is. Both are read from the site's own static files.
import { pageFor, pageSources } from '../../../build/site/paging.ts';

const PAGE_HEADERS = { 'Content-Type': 'application/json; charset=utf-8', 'Access-Control-Allow-Origin': '*' };

export default async function page(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const read = async (rel: string) => {
    const res = await fetch(new URL(`/${rel}`, url));
    return res.ok ? res.text() : undefined;
  };
  const body = await pageFor(url, read);
  if (body !== undefined) return new Response(request.method === 'HEAD' ? null : body, { headers: PAGE_HEADERS });
  const kind = url.pathname.split('/')[3] ?? '';
  return fetch(new URL(`/${pageSources.list(kind)}`, url), { method: request.method });
}

export const config = { path: ['/api/v2/:kind', '/api/v2/:kind/'], excludedPath: ['/api/v2/openapi.json', '/api/v2/index.json'] };
