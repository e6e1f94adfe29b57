// The fast way to read a source file (`readText`) and a YAML record in it (`loadYaml`): the quick
// reader (quick-yaml.mjs) for a record in the plain block style, js-yaml for any other ordinary
// record. Plain JavaScript, shared by the build (load.ts) and the thread that reads the late kinds'
// records ahead (read-ahead.mjs), so that both read a record the same way. A document with anchors
// goes to the careful parser (load.ts), and so does one that js-yaml refuses.
import { hash } from 'node:crypto';
import fs from 'node:fs';
import jsyaml from 'js-yaml';
import { quickLoad } from './quick-yaml.mjs';

/** Anchors (and with them aliases) mark a document for the careful parser, which caps expansion. */
const ANCHOR = /(?:^|[\s[{,:-])&[^\s[\]{},]/m;

/** Whether a document has an anchor (`ANCHOR`); most have no '&' at all, which is quicker to see. */
export const hasAnchor = (text) => text.includes('&') && ANCHOR.test(text);

/** A text without the byte-order mark some editors put first. */
export const withoutMark = (text) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

/** The buffer source files are read into, one at a time, grown for a file that does not fit. */
let buffer = Buffer.allocUnsafe(64 * 1024);

/**
 * A source file's text, without a byte-order mark. It is read into a buffer kept from one file to
 * the next, in one read unless the file fills it (a read that does not fill it has come to the
 * file's end). readFileSync asks for the file's size first and makes a buffer of that size: 7,554
 * small files took it 33–79 ms, against 27–36 ms here.
 */
export function readText(abs) {
  const fd = fs.openSync(abs, 'r');
  try {
    let length = 0;
    for (;;) {
      const read = fs.readSync(fd, buffer, length, buffer.length - length, null);
      length += read;
      if (read === 0 || length < buffer.length) break;
      const larger = Buffer.allocUnsafe(buffer.length * 2);
      buffer.copy(larger, 0, 0, length);
      buffer = larger;
    }
    return withoutMark(buffer.toString('utf8', 0, length));
  } finally {
    fs.closeSync(fd);
  }
}

/** What the build compares to know a source has not changed. */
export const hashText = (text) => hash('sha1', text, 'base64url');

/**
 * An ordinary YAML record as js-yaml reads it (by the quick reader, when it is written plainly);
 * throws where js-yaml refuses it.
 */
export const loadYaml = (text, filename) => quickLoad(text) ?? jsyaml.load(text, { schema: jsyaml.CORE_SCHEMA, filename });

/** Records nest a handful of levels; a document nested deeper than this is refused (load.ts). */
export const MAX_DEPTH = 32;
