// Whether an author's SVG could act. It is served from the API's own origin, where a browser that opens
// it runs what it holds as the site's own page: a script, an embedded page, an event handler, a link or
// an animation to a `javascript:` url. A browser reads it as XML, namespaces and character references
// resolved, so it is read here by an XML parser (saxes) the same way, not searched as text: `<s:script>`
// with `s` bound to SVG's namespace, or `&#106;avascript:`, is what a browser sees as script.
import { SaxesParser, type SaxesTagNS } from 'saxes';

const SVG = 'http://www.w3.org/2000/svg';
/** Namespaces whose elements a browser makes live in an SVG document: an XHTML `<script>`, `<iframe>` or `<img onerror>` runs. */
const LIVE_NAMESPACES = new Map([
  ['http://www.w3.org/1999/xhtml', 'XHTML'],
  ['http://www.w3.org/1998/Math/MathML', 'MathML'],
]);
/** SVG's own elements that run code or hold a page. */
const ACTIVE_ELEMENTS = new Set(['script', 'foreignobject', 'handler', 'listener']);
/** Url schemes that run code where a link, an animation's value or an embed names them. */
const CODE_URL = /(?:java|vb)script:/;
/** Animations, which name an attribute to set: an event handler set is one given. */
const ANIMATIONS = new Set(['set', 'animate', 'animatemotion', 'animatetransform', 'discard']);
/** Elements whose `href` a browser may load as an image: a `data:` image there is drawn, never run as a page. */
const IMAGE_ELEMENTS = new Set(['image', 'feimage']);

/**
 * Why an SVG's text is not an image that stays one (what it holds that could act, or why it is not
 * SVG at all), or undefined when it is one. The first element must be `<svg>` in SVG's namespace.
 */
export function activeSvg(text: string): string | undefined {
  const parser = new SaxesParser({ xmlns: true, position: false });
  let why: string | undefined;
  let root = true;
  const refuse = (reason: string) => void (why ??= reason);
  parser.on('doctype', () => refuse('is an SVG that holds a <!DOCTYPE>, which may declare entities'));
  parser.on('processinginstruction', ({ target }) =>
    refuse(`is an SVG that holds the instruction <?${target}?>, which may load a stylesheet that makes a page`),
  );
  parser.on('opentag', (tag) => {
    if (root && !(tag.local === 'svg' && tag.uri === SVG))
      refuse('is not an SVG image: its first element is not <svg> in the SVG namespace');
    root = false;
    const reason = activeElement(tag);
    if (reason) refuse(reason);
  });
  parser.on('error', (error) => refuse(`is not an SVG image: it is not well-formed XML (${error.message.replace(/\.$/, '')})`));
  try {
    parser.write(text).close();
  } catch (error) {
    refuse(`is not an SVG image: it is not well-formed XML (${(error as Error).message.replace(/\.$/, '')})`);
  }
  return why;
}

/** What makes one element able to act, or undefined. */
function activeElement(tag: SaxesTagNS): string | undefined {
  const name = `<${tag.name}>`;
  const local = tag.local.toLowerCase();
  const live = LIVE_NAMESPACES.get(tag.uri);
  if (live) return `is an SVG that holds ${name}, an element of ${live}, which a browser runs inside an SVG`;
  if (tag.uri === SVG && ACTIVE_ELEMENTS.has(local))
    return `is an SVG that holds ${name}: an image here may hold no script or embedded page`;
  for (const attribute of Object.values(tag.attributes)) {
    const attr = attribute.local.toLowerCase();
    if (attr.startsWith('on')) return `is an SVG that holds ${name} with the event handler ${attribute.name}`;
    // As a url is read (tabs and line breaks dropped, spaces and controls trimmed), in any case.
    const value = attribute.value.replace(/[\p{Cc}\s]/gu, '').toLowerCase();
    if (CODE_URL.test(value)) return `is an SVG that holds ${name} whose ${attribute.name} is a script url`;
    if (attr === 'href' && value.startsWith('data:') && !(IMAGE_ELEMENTS.has(local) && value.startsWith('data:image/')))
      return `is an SVG that holds ${name} whose ${attribute.name} is a data: url, which only an <image> may name`;
    if (attr === 'attributename' && ANIMATIONS.has(local) && value.startsWith('on'))
      return `is an SVG that holds ${name} setting the event handler ${attribute.value}`;
  }
  return undefined;
}
