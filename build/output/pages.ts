// GitHub Pages answers a folder's url with the folder's `index.html` and nothing else: no rewrite
// reaches `index.json`. For an output meant for it, each `index.json` gets a copy beside it named
// `index.html`, the same bytes, linked to it (hosts/README.md, GitHub Pages).
import type { OutputFile } from './plan.ts';

const INDEX = '/index.json';

/** The files, each folder's `index.json` followed by its `index.html`. */
export function* withPagesIndexes(files: Iterable<OutputFile>): Generator<OutputFile> {
  // A file linked to the one just before it (a record's name path to its id path) is linked to that
  // one's copy instead, which now comes just before it, with the same bytes.
  let copied: { from: string; to: string } | undefined;
  for (const file of files) {
    yield copied && file.sameAs === copied.from ? { ...file, sameAs: copied.to } : file;
    copied = undefined;
    if (!file.rel.endsWith(INDEX) || file.join) continue;
    const copy = `${file.rel.slice(0, -INDEX.length)}/index.html`;
    yield { rel: copy, sameAs: file.rel };
    copied = { from: file.rel, to: copy };
  }
}
