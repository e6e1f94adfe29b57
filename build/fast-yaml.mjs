// The fast way to read a YAML source: js-yaml, for an ordinary record. Plain JavaScript, shared by
// the build (load.ts) and the thread that reads the late kinds' records ahead (read-ahead.mjs),
// so that both read a record the same way. A document with anchors goes to the careful parser
// (load.ts), and so does one that js-yaml refuses.
import { hash } from 'node:crypto';
import jsyaml from 'js-yaml';

/** Anchors (and with them aliases) mark a document for the careful parser, which caps expansion. */
export const ANCHOR = /(?:^|[\s[{,:-])&[^\s[\]{},]/m;

/** A text without the byte-order mark some editors put first. */
export const withoutMark = (text) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

/** What the build compares to know a source has not changed. */
export const hashText = (text) => hash('sha1', text, 'base64url');

/** An ordinary YAML record as js-yaml reads it; throws where js-yaml refuses it. */
export const loadYaml = (text, filename) => jsyaml.load(text, { schema: jsyaml.CORE_SCHEMA, filename });

/** Records nest a handful of levels; a document nested deeper than this is refused (load.ts). */
export const MAX_DEPTH = 32;
