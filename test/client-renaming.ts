// What an app puts between a PokeAPI client and this API: the API says "creature" and "athlon"
// where PokeAPI says "pokemon" and "pokeathlon", in its paths and field names. A request's kind is
// renamed on the way there, an answer's keys and the kinds in its urls on the way back, so the
// client sees PokeAPI's names. The fetch is the README's ("Clients"), word for word; a client that
// takes no fetch (pokedex-promise-v2) is given a loopback proxy that answers through it.
import http from 'node:http';
import { listen } from '../build/site/serve.ts';

// This API's words for PokeAPI's in a url's kind; PokeAPI's again in an answer's keys and urls.
const ours = (s: string) => s.replace(/pokeathlon/g, 'athlon').replace(/pokemon/g, 'creature');
const theirs = (s: string) => s.replace(/athlon/g, 'pokeathlon').replace(/creature/g, 'pokemon');
const kind = (url: string, rename: (s: string) => string) => url.replace(/(?<=\/api\/v2\/)[a-z-]+/, rename);
// prettier-ignore
const back = (v: unknown): unknown => Array.isArray(v) ? v.map(back) : typeof v === 'string' ? kind(v, theirs)
  : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [theirs(k), back(x)])) : v;
export const renamingFetch = async (url: string, init?: RequestInit) => {
  const answer = await fetch(kind(url, ours), init);
  return answer.ok ? Response.json(back(await answer.json())) : answer;
};

/**
 * A loopback proxy in front of the API at `api`: each request goes through `renamingFetch`, and
 * the answer's urls name the proxy, so that a link followed comes back through it. `asked` holds
 * each request's target, as the client sent it.
 */
export async function renamingProxy(api: string): Promise<{ url: string; asked: string[]; close: () => Promise<void> }> {
  let url = '';
  const asked: string[] = [];
  const server = http.createServer((req, res) => {
    asked.push(req.url!);
    void renamingFetch(`${api}${req.url}`).then(
      async (answer) => {
        const body = (await answer.text()).replaceAll(api, url);
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' }).end(body);
      },
      () => res.writeHead(502).end(),
    );
  });
  url = await listen(server, 0, '127.0.0.1');
  return { url, asked, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
