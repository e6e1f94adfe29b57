// Whether an author's SVG could act. It is served from the API's own origin, where a browser that opens
// it runs what it holds as the site's own page: a script, an embedded page, an event handler, a link or
// an animation to a `javascript:` url. A browser reads it as XML, namespaces and character references
// resolved, so it is read here by an XML parser (saxes) the same way, not searched as text: `<s:script>`
// with `s` bound to SVG's namespace, or `&#106;avascript:`, is what a browser sees as script. Its bytes
// are read as UTF-8 (media.ts), so it may declare no other encoding: a browser would decode it by the
// one declared, where a Shift_JIS byte swallows the `]` that ends a CDATA section the parser saw end.
import { createRequire } from 'node:module';
import type { SaxesTagNS } from 'saxes';

// Loaded when an SVG is first checked: most builds have none of an author's, and every process would pay for it.
const require = createRequire(import.meta.url);
const saxes = () => require('saxes') as typeof import('saxes');

const SVG = 'http://www.w3.org/2000/svg';
const XHTML = 'http://www.w3.org/1999/xhtml';
const MATHML = 'http://www.w3.org/1998/Math/MathML';
/** Namespaces whose attributes a browser reads as links: none (an SVG's own), XLink's and XML's. */
const LINK_NAMESPACES = new Set(['', 'http://www.w3.org/1999/xlink', 'http://www.w3.org/XML/1998/namespace']);
/** SVG's own elements that run code. */
const SVG_ACTIVE = new Set(['script', 'handler', 'listener']);
/**
 * XHTML elements that only show text, images and links, as editors put them in a `<foreignObject>`
 * (a diagram's labels), their attributes checked as every element's: any other (a script, a frame,
 * an embed, a form, a button, a meta refresh) is refused.
 */
const XHTML_INERT = new Set(
  'a abbr b big blockquote br caption center cite code col colgroup dd del div dl dt em font h1 h2 h3 h4 h5 h6 hr i img ins kbd label li mark ol p pre q s samp small span strike strong sub sup table tbody td tfoot th thead tr tt u ul var wbr'.split(
    ' ',
  ),
);
/** A url that runs code, once tabs, line breaks, spaces and controls are dropped, as a url parser drops them. */
const CODE_URL = /^(?:java|vb)script:/;
/** Animations, which name an attribute to set: an event handler set is one given. */
const ANIMATIONS = new Set(['set', 'animate', 'animatemotion', 'animatetransform', 'discard']);
/** Elements whose `href` a browser loads as an image: a `data:` image there is drawn, never run as a page. */
const IMAGE_ELEMENTS = new Set(['image', 'feimage']);
/**
 * How deep an image's elements may nest. Editors write a few dozen levels; the parser takes time
 * growing with the square of the depth (20,000 levels, 140 kB, took 3 s), so a file deeper than
 * this is refused before the parser goes further.
 */
const MAX_SVG_DEPTH = 256;

/** Thrown from the parser's handler to stop it: the reason is given already. */
const STOP = new Error('stopped');

/**
 * Why an SVG's text is not an image that stays one (what it holds that could act, or why it is not
 * SVG at all), or undefined when it is one. The first element must be `<svg>` in SVG's namespace.
 */
export function activeSvg(text: string): string | undefined {
  const parser = new (saxes().SaxesParser)({ xmlns: true, position: false });
  let why: string | undefined;
  let root = true;
  const refuse = (reason: string) => void (why ??= reason);
  const encoding = declaredEncoding(text);
  // Text of ASCII alone hides no markup in any encoding a browser takes from a declaration (iso-8859-1, as old editors wrote).
  if (encoding !== undefined && !isAscii(text))
    refuse(`is an SVG that declares the encoding ${encoding}: its bytes are read as UTF-8, and a browser would read them otherwise`);
  // A DTD of its own may declare entities; one that only names SVG's (editors write it) declares none.
  parser.on('doctype', (doctype) => {
    if (doctype.includes('[')) refuse('is an SVG that declares entities in a <!DOCTYPE>');
  });
  parser.on('processinginstruction', ({ target }) => {
    if (target.toLowerCase() === 'xml-stylesheet')
      refuse(`is an SVG that holds <?${target}?>, which may load a stylesheet that makes a page`);
  });
  let depth = 0;
  parser.on('opentag', (tag) => {
    if (root && !(tag.local === 'svg' && tag.uri === SVG))
      refuse('is not an SVG image: its first element is not <svg> in the SVG namespace');
    root = false;
    const reason = activeElement(tag);
    if (reason) refuse(reason);
    // A self-closing tag is closed at once, as its closetag follows.
    if (++depth > MAX_SVG_DEPTH) {
      refuse(`is an SVG whose elements nest more than ${MAX_SVG_DEPTH} deep`);
      throw STOP;
    }
  });
  parser.on('closetag', () => void depth--);
  const illFormed = (error: Error) => refuse(`is not an SVG image: it is not well-formed XML (${error.message.replace(/\.$/, '')})`);
  // The first error is the file's; the parser would go on to report as many as the file has bytes.
  parser.on('error', (error) => {
    illFormed(error);
    throw STOP;
  });
  try {
    parser.write(text).close();
  } catch (error) {
    if (error !== STOP) illFormed(error as Error);
  }
  return why;
}

/**
 * The encoding other than UTF-8 a browser takes from the start of the file, if any, as Blink reads
 * it (TextResourceDecoder's XML charset check): from `<?xml` to the first `>`, whether that is the
 * XML declaration or an instruction whose name only starts so (`<?xml-model … encoding="Shift_JIS"?>`),
 * an `encoding`, an `=` and a quoted value. A parser sees the declaration alone.
 */
function declaredEncoding(text: string): string | undefined {
  if (!text.startsWith('<?xml')) return undefined;
  const end = text.indexOf('>');
  const head = end < 0 ? text : text.slice(0, end);
  const values = [...head.matchAll(/encoding[\p{Cc} ]*=[\p{Cc} ]*(["'])(.*?)\1/giu)].map((m) => m[2]!);
  return values.find((value) => !/^utf-?8$/i.test(value));
}

const isAscii = (text: string) => !/[^\p{ASCII}]/u.test(text);

/** What makes one element able to act, or undefined. */
function activeElement(tag: SaxesTagNS): string | undefined {
  const name = `<${tag.name}>`;
  const local = tag.local.toLowerCase();
  if (tag.uri === SVG && SVG_ACTIVE.has(local)) return `is an SVG that holds ${name}: an image here may hold no script`;
  if (tag.uri === XHTML && !XHTML_INERT.has(local))
    return `is an SVG that holds ${name}, an XHTML element beyond text, images and links, which an image here may not hold`;
  if (tag.uri === MATHML) return `is an SVG that holds ${name}, a MathML element, which may hold links`;
  // Only a browser's own elements (SVG's, XHTML's, MathML's) have event handlers: an editor's (an
  // inkscape:path-effect's only_selected) has none. Only attributes of no namespace are handlers.
  const own = tag.uri === SVG || tag.uri === XHTML || tag.uri === MATHML;
  for (const attribute of Object.values(tag.attributes)) {
    const attr = attribute.local.toLowerCase();
    if (own && attribute.uri === '' && attr.startsWith('on'))
      return `is an SVG that holds ${name} with the event handler ${attribute.name}`;
    // Editors keep their own attributes under their namespaces (inkscape:label), which no browser reads as links.
    if (!LINK_NAMESPACES.has(attribute.uri)) continue;
    // As a url parser reads it; an animation's values (`a;b`) each alike.
    const url = attribute.value.replace(/[\p{Cc}\s]/gu, '').toLowerCase();
    if (url.split(';').some((value) => CODE_URL.test(value))) return `is an SVG that holds ${name} whose ${attribute.name} is a script url`;
    if (attr === 'href' && url.startsWith('data:') && !(IMAGE_ELEMENTS.has(local) && /^data:image\/[a-z0-9.+-]+[;,]/.test(url)))
      return `is an SVG that holds ${name} whose ${attribute.name} is a data: url: only an <image> may name one, of an image type`;
    if (own && attribute.uri === '' && attr === 'attributename' && ANIMATIONS.has(local) && url.startsWith('on'))
      return `is an SVG that holds ${name} setting the event handler ${attribute.value}`;
  }
  return undefined;
}
