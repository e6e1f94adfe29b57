// GitHub Pages answers a folder's url with the folder's `index.html` and nothing else: no rewrite
// reaches `index.json`. For an output meant for it, each `index.json` gets a copy beside it named
// `index.html` (hosts/README.md, GitHub Pages). Pages sends that copy as `text/html`, which a
// browser reads as a page: text from the data holding `<` would be markup there, a script on the
// site's origin. So the copy writes `<`, `>` and `&` as JSON escapes: the same value, no markup.
import type { OutputFile } from './plan.ts';

const INDEX = '/index.json';

/** The JSON with the characters HTML reads as markup written as escapes (only strings hold them). */
export const inertJson = (json: string) => json.replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);

/** The files, each folder's `index.json` followed by its `index.html`. */
export function* withPagesIndexes(files: Iterable<OutputFile>): Generator<OutputFile> {
  // A file linked to the one just before it (a record's name path to its id path) is linked to that
  // one's copy instead, when the copy is a link too: it now comes just before, with the same bytes.
  let linked: { from: string; to: string } | undefined;
  for (const file of files) {
    yield linked && file.sameAs === linked.from ? { ...file, sameAs: linked.to } : file;
    linked = undefined;
    if (!file.rel.endsWith(INDEX) || file.join) continue;
    const copy = `${file.rel.slice(0, -INDEX.length)}/index.html`;
    if (file.body === undefined)
      throw new Error(`${file.rel} is carried over from the live tree; a build for GitHub Pages writes every file`);
    const text = String(file.body);
    const inert = inertJson(text);
    if (inert !== text) {
      yield { rel: copy, body: inert };
      continue;
    }
    yield { rel: copy, sameAs: file.rel };
    linked = { from: file.rel, to: copy };
  }
}
