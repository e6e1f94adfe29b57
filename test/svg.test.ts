// An author's SVG is published from the API's own origin, so one that can act is refused (svg.ts).
// Each hostile image here is first shown to run in Chromium, served by the real server as the build
// would publish it, so the test holds the check to what a browser does, not to a list of strings;
// the images an author draws (the fixture's, the shipped world's, an editor's with its own namespaces
// and an embedded bitmap) are accepted and drawn.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activeSvg } from '../build/site/svg.ts';
import { launchChromium } from './browser.ts';
import { defaultDataDir } from '../build/paths.ts';
import { fixturesDir, serve, tempDir } from './helpers.ts';

const ran = (name: string) => `document.title='ran-${name}'`;
const svg = (body: string, attributes = '') =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="200"${attributes}>${body}</svg>`;
const link = (href: string) => svg(`<a href="${href}"><rect width="200" height="200"/></a>`);

/** Images that run script in Chromium, by what runs it: opening the image, or a click on it. */
const RUNS: Record<string, { text: string; on: 'open' | 'click'; refused: RegExp }> = {
  script: { text: svg(`<script>${ran('script')}</script>`), on: 'open', refused: /holds <script>: / },
  'script-prefixed': {
    text: svg(`<s:script>${ran('script-prefixed')}</s:script>`, ' xmlns:s="http://www.w3.org/2000/svg"'),
    on: 'open',
    refused: /holds <s:script>: /,
  },
  'xhtml-script': {
    text: svg(`<h:script>${ran('xhtml-script')}</h:script>`, ' xmlns:h="http://www.w3.org/1999/xhtml"'),
    on: 'open',
    refused: /holds <h:script>, an XHTML element beyond text, images and links/,
  },
  'xhtml-iframe': {
    text: svg(`<h:iframe srcdoc="&lt;script&gt;parent.${ran('xhtml-iframe')}&lt;/script&gt;"/>`, ' xmlns:h="http://www.w3.org/1999/xhtml"'),
    on: 'open',
    refused: /holds <h:iframe>, an XHTML element beyond text, images and links/,
  },
  'foreign-object': {
    text: svg(`<foreignObject><img xmlns="http://www.w3.org/1999/xhtml" src="x" onerror="${ran('foreign-object')}"/></foreignObject>`),
    on: 'open',
    refused: /holds <img> with the event handler onerror/,
  },
  // Read as UTF-8, the CDATA section ends and a comment hides the script; read as Shift_JIS, as the
  // declaration asks, "Á"'s second byte swallows the first "]", and the script is live.
  'shift-jis': {
    text: `<?xml version="1.0" encoding="Shift_JIS"?>\n${svg(`<desc><![CDATA[\u00C1]]><!-- ]]></desc><script>${ran('shift-jis')}</script><desc>--></desc>`)}`,
    on: 'open',
    refused: /declares the encoding Shift_JIS: /,
  },
  // Not the declaration, but an instruction whose name starts as one: Chromium reads its encoding all the same.
  'shift-jis-instruction': {
    text: `<?xml-model href="svg.rng" encoding="Shift_JIS"?>\n${svg(`<desc><![CDATA[\u00C1]]><!-- ]]></desc><script>${ran('shift-jis-instruction')}</script><desc>--></desc>`)}`,
    on: 'open',
    refused: /declares the encoding Shift_JIS: /,
  },
  onload: { text: svg('', `\nonload="${ran('onload')}"`), on: 'open', refused: /holds <svg> with the event handler onload/ },
  'entity-link': {
    text: link(`&#106;avascript:void(${ran('entity-link')})`),
    on: 'click',
    refused: /holds <a> whose href is a script url/,
  },
  'tab-link': { text: link(`java&#9;script:void(${ran('tab-link')})`), on: 'click', refused: /holds <a> whose href is a script url/ },
  'animated-link': {
    text: svg(
      `<a><animate attributeName="href" values="&#106;avascript:void(${ran('animated-link')})"/><rect width="200" height="200"/></a>`,
    ),
    on: 'click',
    refused: /holds <animate> whose values is a script url/,
  },
};

/** Refused as well, though this Chromium does not run them: another browser, or an older one, may. */
const REFUSED_TOO: Record<string, { text: string; refused: RegExp }> = {
  'set-handler': {
    text: svg(`<rect><set attributeName="onclick" to="${ran('set')}"/></rect>`),
    refused: /holds <set> setting the event handler onclick/,
  },
  'data-use': { text: svg('<use href="data:image/svg+xml,%3Csvg/%3E#x"/>'), refused: /holds <use> whose href is a data: url/ },
  'data-untyped': {
    text: svg('<image href="data:;base64,AAAA"/>'),
    refused: /holds <image> whose href is a data: url: only an <image> may name one, of an image type/,
  },
  stylesheet: {
    text: `<?xml-stylesheet type="text/xsl" href="x.xsl"?>${svg('')}`,
    refused: /holds <\?xml-stylesheet\?>, which may load a stylesheet/,
  },
  doctype: { text: `<!DOCTYPE svg [<!ENTITY a "b">]>${svg('')}`, refused: /declares entities in a <!DOCTYPE>/ },
  // A form on the site's own origin, asking for a password.
  'xhtml-form': {
    text: svg(
      '<foreignObject><form xmlns="http://www.w3.org/1999/xhtml" action="https://x.example/"><input type="password"/></form></foreignObject>',
    ),
    refused: /holds <form>, an XHTML element beyond text, images and links/,
  },
  'not-svg': {
    text: '<html xmlns="http://www.w3.org/1999/xhtml"><body/></html>',
    refused: /its first element is not <svg> in the SVG namespace/,
  },
  'no-namespace': { text: '<svg><rect/></svg>', refused: /its first element is not <svg> in the SVG namespace/ },
  // The parser's time grows with the square of the depth: 20,000 levels took it 3 s, a 2 MiB file would take minutes.
  deep: { text: svg(`${'<g>'.repeat(20_000)}${'</g>'.repeat(20_000)}`), refused: /whose elements nest more than 256 deep/ },
  'two-roots': { text: `${svg('')}<script xmlns="http://www.w3.org/2000/svg"/>`, refused: /is not well-formed XML/ },
};

/** Images as authors and their editors write them. */
const IMAGES: Record<string, string> = {
  fixture: fs.readFileSync(path.join(fixturesDir, 'media/badge.svg'), 'utf8'),
  shipped: fs.readFileSync(path.join(defaultDataDir, 'creature-form/drakebit/front.svg'), 'utf8'),
  editor:
    '\uFEFF<?xml version="1.0" encoding="UTF-8"?>\n<!-- drawn in an editor -->\n' +
    svg(
      '<sodipodi:namedview id="view"/><defs><linearGradient id="g"><stop offset="0" stop-color="#c33"/></linearGradient></defs>' +
        '<style>.a{fill:url(#g)}</style><rect class="a" width="200" height="200"/><use xlink:href="#g"/>' +
        '<image width="1" height="1" href="data:image/png;base64,iVBORw0KGgo="/><a href="https://example.org/"><text y="20">link</text></a>',
      ' xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd"',
    ),
  // An editor's own attributes, in its namespace: a path effect's only_selected is no event handler, a label no url.
  inkscape: svg(
    '<defs><inkscape:path-effect effect="bspline" id="e" only_selected="false"/></defs><g inkscape:label="JavaScript: logo"><rect width="200" height="200"/></g>',
    ' xmlns:inkscape="http://www.inkscape.org/namespaces/inkscape"',
  ),
  // SVG 1.1's DTD named, declaring nothing, and XMP metadata's packet: as Illustrator writes them.
  illustrator:
    '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n' +
    svg('<metadata><?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><?xpacket end="w"?></metadata><circle cx="100" cy="100" r="50"/>'),
  // A diagram's label, as text in XHTML inside a foreignObject, a link of its own.
  diagram: svg(
    '<rect width="200" height="200" fill="#ddd"/><foreignObject width="200" height="200"><div xmlns="http://www.w3.org/1999/xhtml" style="font: 12px sans-serif"><b>Label</b><br/><strike>second</strike> <a href="https://example.org/">line</a></div></foreignObject>',
  ),
  // As deep as an image may nest, 256 levels: the <svg>, 254 groups and a shape.
  nested: svg(`${'<g>'.repeat(254)}<rect width="200" height="200"/>${'</g>'.repeat(254)}`),
  // ASCII, as an old editor declared it: no encoding a browser takes from a declaration reads other markup in it.
  latin1: `<?xml version="1.0" encoding="iso-8859-1"?>\n${svg('<circle cx="100" cy="100" r="50"/>')}`,
};

describe("an author's SVG", () => {
  let browser: Browser;
  let url: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const dir = await tempDir();
    const media = path.join(dir, 'media/item/1');
    fs.mkdirSync(media, { recursive: true });
    for (const [name, text] of Object.entries({ ...Object.fromEntries(Object.entries(RUNS).map(([k, v]) => [k, v.text])), ...IMAGES }))
      fs.writeFileSync(path.join(media, `${name}.svg`), text);
    ({ url, close } = await serve(dir));
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await close?.();
  });

  it.each(Object.keys(RUNS))('%s: runs script in Chromium, and is refused', async (name) => {
    const { text, on, refused } = RUNS[name]!;
    const page = await browser.newPage();
    try {
      const answer = await page.goto(`${url}/media/item/1/${name}.svg`);
      expect(answer?.headers()['content-type']).toBe('image/svg+xml');
      if (on === 'click') await page.mouse.click(50, 50);
      await expect.poll(() => page.title(), { timeout: 5_000 }).toBe(`ran-${name}`);
    } finally {
      await page.close();
    }
    expect(activeSvg(text)).toMatch(refused);
  });

  it.each(Object.keys(REFUSED_TOO))('%s: is refused', (name) => {
    expect(activeSvg(REFUSED_TOO[name]!.text)).toMatch(REFUSED_TOO[name]!.refused);
  });

  it.each(Object.keys(IMAGES))('%s: is accepted, and drawn as an image', async (name) => {
    expect(activeSvg(IMAGES[name]!)).toBeUndefined();
    const page = await browser.newPage();
    try {
      await page.goto(`${url}/api/v2/`);
      const width = await page.evaluate(async (src) => {
        const img = new Image();
        img.src = src;
        await img.decode();
        return img.naturalWidth;
      }, `${url}/media/item/1/${name}.svg`);
      expect(width).toBeGreaterThan(0);
    } finally {
      await page.close();
    }
  });
});
