// The quick reader: a record written in the plain block style most records are written in —
// `key: value` lines, `- ` items, indentation — read about 3.4 times as fast as js-yaml reads it
// (over a scale-1 world's sources, 78 ms against 262 ms), and to the same value. Anything outside
// that style it leaves to js-yaml (`quickLoad` gives undefined): comments, quotes other than a
// plain "…", anchors, tags, block scalars, flow collections but `[]` and `{}`, a scalar over more
// than one line, a number that is not a plain integer, a duplicated key, a tab, a carriage
// return, any character outside the few it knows. What it takes, js-yaml takes too, and reads
// the same way; `test/quick-yaml.test.ts` holds it to that over whole worlds and mutations of them.
// Plain JavaScript, like fast-yaml.mjs, which reads records with it on either thread.

/**
 * The characters a document may hold to be read here: a few of ASCII's, and any beyond it that
 * js-yaml reads as a plain character (not U+2028, U+2029 or a byte-order mark, nor a pair of
 * surrogates: those are left to it).
 */
const QUICK_CHARS = /^[\n A-Za-z0-9_.,:()/+[\]{}"\-\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]*$/;
/** Plain words the core schema reads as null or a boolean. */
const WORD = /^(?:null|Null|NULL|true|True|TRUE|false|False|FALSE)$/;
/** An integer written plainly, short enough to be exact; any other number is left to js-yaml. */
const INTEGER = /^-?(?:0|[1-9][0-9]{0,14})$/;

const SPACE = 32;
const NEWLINE = 10;
const DASH = 45;
const COLON = 58;
const QUOTE = 34;

const isLetter = (c) => (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
const isKeyHead = (c) => isLetter(c) || c === 95;
const isKeyTail = (c) => isKeyHead(c) || (c >= 48 && c <= 57) || c === DASH;

/**
 * Where the reader is: the line it stands on (from `start`, its text from `at`, at column `col`,
 * to `end`), or `done` past the last one. `ok` turns false, for good, at the first thing it does
 * not take.
 */
class Reader {
  constructor(text) {
    this.text = text;
    this.ok = true;
    this.done = false;
    this.start = 0;
    this.at = 0;
    this.col = 0;
    this.end = 0;
  }

  /** Moves to the first line from `from` that holds more than spaces. */
  next(from) {
    const { text } = this;
    const n = text.length;
    for (let i = from; i < n;) {
      let j = i;
      while (j < n && text.charCodeAt(j) === SPACE) j++;
      if (j < n && text.charCodeAt(j) !== NEWLINE) {
        const end = text.indexOf('\n', j);
        this.start = i;
        this.at = j;
        this.col = j - i;
        this.end = end < 0 ? n : end;
        return;
      }
      i = j + 1;
    }
    this.done = true;
  }

  /** Gives up: the document is left to js-yaml. */
  fail() {
    this.ok = false;
    this.done = true;
    return undefined;
  }

  /** The colon ending a key that starts at `at` (followed by a space or the line's end), or -1. */
  keyEnd(at) {
    const { text } = this;
    if (!isKeyHead(text.charCodeAt(at))) return -1;
    let j = at + 1;
    while (isKeyTail(text.charCodeAt(j))) j++;
    if (text.charCodeAt(j) !== COLON) return -1;
    return j + 1 === this.end || text.charCodeAt(j + 1) === SPACE ? j : -1;
  }

  /** Whether the line is a sequence item: a dash, then a space or the line's end. */
  isItem() {
    const { text, at } = this;
    return text.charCodeAt(at) === DASH && (at + 1 === this.end || text.charCodeAt(at + 1) === SPACE);
  }

  /** The line from `from` to its end, without the spaces around it. */
  rest(from) {
    const { text } = this;
    let a = from;
    let b = this.end;
    while (a < b && text.charCodeAt(a) === SPACE) a++;
    while (b > a && text.charCodeAt(b - 1) === SPACE) b--;
    return text.slice(a, b);
  }

  /** A block mapping whose keys stand at column `indent`, the first on the current line. */
  mapping(indent) {
    const map = {};
    const { text } = this;
    for (;;) {
      const colon = this.keyEnd(this.at);
      if (colon < 0) return this.fail();
      const key = text.slice(this.at, colon);
      if (key === '__proto__' || WORD.test(key) || Object.hasOwn(map, key)) return this.fail();
      const written = this.rest(colon + 1);
      if (written === '') {
        // Its value is the block below it (a sequence may stand at the key's own column), or null.
        this.next(this.end + 1);
        if (this.done || this.col < indent || (this.col === indent && !this.isItem())) map[key] = null;
        else map[key] = this.isItem() ? this.sequence(this.col) : this.mapping(this.col);
      } else {
        const value = scalar(written);
        if (value === undefined) return this.fail();
        map[key] = value;
        this.next(this.end + 1);
      }
      if (!this.ok) return undefined;
      if (this.done || this.col < indent) return map;
      if (this.col > indent) return this.fail(); // below a scalar, the scalar going on over lines
    }
  }

  /** A block sequence whose dashes stand at column `indent`, the first on the current line. */
  sequence(indent) {
    const list = [];
    const { text } = this;
    for (;;) {
      let k = this.at + 1;
      while (k < this.end && text.charCodeAt(k) === SPACE) k++;
      // An empty item, or a sequence in an item on the same line, is left to js-yaml.
      if (k === this.end || (text.charCodeAt(k) === DASH && (k + 1 === this.end || text.charCodeAt(k + 1) === SPACE))) return this.fail();
      if (this.keyEnd(k) >= 0) {
        // A mapping in the item: its keys stand at the column of its first.
        this.at = k;
        this.col = k - this.start;
        list.push(this.mapping(this.col));
      } else {
        const value = scalar(this.rest(k));
        if (value === undefined) return this.fail();
        list.push(value);
        this.next(this.end + 1);
      }
      if (!this.ok) return undefined;
      if (this.done || this.col < indent) return list;
      if (this.col > indent) return this.fail();
      if (!this.isItem()) return list; // a key beside the sequence: the mapping around it goes on
    }
  }
}

/** A scalar as the core schema reads it, or undefined for one left to js-yaml. */
function scalar(text) {
  const c = text.charCodeAt(0);
  if (isLetter(c) || c >= 0xa0) {
    if (WORD.test(text)) return c === 110 || c === 78 ? null : c === 116 || c === 84;
    for (let i = 1; i < text.length; i++) {
      const d = text.charCodeAt(i);
      // ':' (a key, or a url), a quote, or a bracket: js-yaml decides what it means.
      if (d === COLON || d === QUOTE || d === 91 || d === 93 || d === 123 || d === 125) return undefined;
    }
    return text;
  }
  if ((c >= 48 && c <= 57) || c === DASH) {
    if (!INTEGER.test(text)) return undefined;
    const n = Number(text);
    return n === 0 ? 0 : n; // '-0' is 0 to js-yaml
  }
  if (c === QUOTE) {
    const inner = text.slice(1, -1);
    return text.length >= 2 && text.charCodeAt(text.length - 1) === QUOTE && !inner.includes('"') ? inner : undefined;
  }
  if (text === '[]') return [];
  if (text === '{}') return {};
  return undefined;
}

/**
 * A record (a mapping at the top) written in the plain block style, as js-yaml reads it; undefined
 * for any document outside that style, which js-yaml is to read (or refuse).
 */
export function quickLoad(text) {
  if (!QUICK_CHARS.test(text)) return undefined;
  const reader = new Reader(text);
  reader.next(0);
  if (reader.done || reader.col !== 0) return undefined;
  const value = reader.mapping(0);
  return reader.ok && reader.done ? value : undefined;
}
