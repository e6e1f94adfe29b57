// One record as a page: a header with its name, types and sprite, a gallery of its sprites, its
// plain fields as facts, and one section per list or object. Every reference is a link into the
// explorer; references to types are chips in the type's colour.
import { typeColour } from '../../build/site/colour.ts';
import { isNamedRef, isUrlRef, localUrl, recordOf, type ApiRecord, type NamedRef, type UrlRef } from './api.ts';
import { h, label, type Child } from './dom.ts';

/** Long lists show this many items until asked for all of them. */
const SHOW_FIRST = 60;

export function routeOf(kind: string, key: string | number): string {
  return `#/${kind}/${key}`;
}

export function typeStyle(name: string): string {
  return `--type: ${typeColour(name)}`;
}

/** A reference as a link into the explorer; one without a name (an evolution chain) goes by its kind and id. */
export function refLink(ref: NamedRef | UrlRef): HTMLElement {
  const target = recordOf(ref.url);
  const name = 'name' in ref ? ref.name : undefined;
  if (!target) {
    const href = localUrl(ref.url);
    return href ? h('a', { href }, name ?? ref.url) : h('span', { class: 'text' }, name ?? ref.url);
  }
  const href = routeOf(target.kind, target.key);
  const text = name ?? `${label(target.kind)} #${target.key}`;
  if (target.kind === 'type') return h('a', { class: 'chip type', href, style: typeStyle(text), 'data-kind': 'type' }, text);
  return h('a', { class: 'chip ref', href, title: `${label(target.kind)} #${target.key}`, 'data-kind': target.kind }, text);
}

const isRef = (value: unknown): value is NamedRef | UrlRef => isNamedRef(value) || isUrlRef(value);

/** The record's English name where it has one, else its slug in words. */
export function displayName(record: ApiRecord): string {
  const names = Array.isArray(record.names) ? (record.names as Array<Record<string, unknown>>) : [];
  const english = names.find((n) => isNamedRef(n.language) && n.language.name === 'en' && typeof n.name === 'string');
  if (english) return english.name as string;
  const slug = typeof record.name === 'string' ? record.name : `#${record.id}`;
  return slug
    .split('-')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
}

/** The record's type names: a type itself, a record with a `type` (a move), or `types: [{slot, type}]` in slot order. */
export function typeNames(kind: string, record: ApiRecord): string[] {
  if (kind === 'type' && typeof record.name === 'string') return [record.name];
  if (isNamedRef(record.type) && recordOf(record.type.url)?.kind === 'type') return [record.type.name];
  if (!Array.isArray(record.types)) return [];
  return (record.types as Array<{ slot?: number; type?: unknown }>)
    .filter((t) => isNamedRef(t.type))
    .sort((a, b) => (a.slot ?? 0) - (b.slot ?? 0))
    .map((t) => (t.type as NamedRef).name);
}

export interface Sprite {
  label: string;
  url: string;
  icon: boolean;
}

/**
 * Every image under `sprites`, once, labelled by where it first sits: `front shiny`,
 * `generation-i · dawn-dusk`. A creature's `other` and `versions` hold its images again, as PokeAPI
 * shapes them: each is shown by its plain label.
 */
export function sprites(record: ApiRecord): Sprite[] {
  const out: Sprite[] = [];
  const seen = new Set<string>();
  const walk = (value: unknown, path: string[]) => {
    if (typeof value === 'string' && /\.(svg|png|gif|webp)$/.test(value)) {
      const url = localUrl(value);
      if (!url || seen.has(value)) return;
      seen.add(value);
      const leaf = path[path.length - 1] ?? '';
      const icon = leaf.includes('icon');
      const words = icon && path.length > 1 ? path.slice(0, -1) : path;
      out.push({ label: words.map((w) => w.replace(/_/g, ' ')).join(' · '), url, icon });
    } else if (value && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) walk(v, [...path, k]);
    }
  };
  walk(record.sprites, []);
  // Front before back, plain before shiny: the order a person looks at them.
  const order = (s: Sprite) =>
    (s.label.startsWith('back') ? 1 : 0) * 4 + (s.label.includes('shiny') ? 2 : 0) + (s.label.includes('female') ? 1 : 0);
  return out.sort((a, b) => order(a) - order(b));
}

function scalar(value: unknown): Child {
  if (value === null || value === undefined) return h('span', { class: 'muted' }, '—');
  if (typeof value === 'boolean') return h('span', { class: value ? 'bool yes' : 'bool no' }, value ? 'yes' : 'no');
  if (typeof value === 'number') return h('span', { class: 'num' }, String(value));
  const text = String(value);
  if (text === '') return h('span', { class: 'muted' }, 'empty');
  // A text that is a url becomes a link, an image or a sound only as the http(s) url it is placed at (localUrl).
  const url = /^https?:\/\//.test(text) ? localUrl(text) : undefined;
  if (url) {
    if (/\.(svg|png|gif|webp)$/.test(text)) return h('img', { class: 'inline-sprite', src: url, alt: '', loading: 'lazy' });
    // A sound (a creature's cry) plays where it is listed.
    if (/\.(ogg|mp3|wav)$/.test(text)) return h('audio', { class: 'inline-sound', src: url, controls: true, preload: 'none' });
    const target = recordOf(text);
    // A url into the API that names no record (a creature's encounters) opens its JSON next to this page.
    return target ? h('a', { href: routeOf(target.kind, target.key) }, text) : h('a', { href: url }, text);
  }
  return h('span', { class: 'text' }, text);
}

function isPlain(value: unknown): boolean {
  return value === null || typeof value !== 'object' || isRef(value);
}

/** A value as a page shows it, in a box of its own: for a part drawn from what the record's field does not hold. */
export const valueBox = (value: unknown): HTMLElement => h('div', null, valueOf(value));

/** A value as a page shows it; inside a table cell, objects are drawn on one line rather than stacked. */
function valueOf(value: unknown, inCell = false): Child {
  if (isRef(value)) return refLink(value);
  if (Array.isArray(value)) return list(value, inCell);
  if (value && typeof value === 'object' && Object.keys(value).length === 0) return h('span', { class: 'muted' }, 'none');
  if (value && typeof value === 'object')
    return inCell ? inline(value as Record<string, unknown>) : fields(value as Record<string, unknown>);
  return scalar(value);
}

/** A long run of items shows its first ones and a button for the rest. */
function capped(items: unknown[], render: (shown: unknown[]) => HTMLElement): HTMLElement {
  const box = h('div', { class: 'capped' });
  const draw = (all: boolean) => {
    const shown = all ? items : items.slice(0, SHOW_FIRST);
    box.replaceChildren(render(shown));
    if (!all && items.length > SHOW_FIRST) {
      box.append(h('button', { class: 'more', type: 'button', onclick: () => draw(true) }, `Show all ${items.length}`));
    }
  };
  draw(false);
  return box;
}

function list(items: unknown[], inCell: boolean): Child {
  if (items.length === 0) return h('span', { class: 'muted' }, 'none');
  if (items.every(isRef)) return capped(items, (shown) => h('div', { class: 'chips' }, (shown as Array<NamedRef | UrlRef>).map(refLink)));
  if (items.every((i) => isPlain(i)))
    return h(
      'div',
      { class: 'chips' },
      items.map((i) => h('span', { class: 'chip plain' }, scalar(i))),
    );
  if (items.every((i) => i && typeof i === 'object' && !Array.isArray(i))) {
    const rows = items as Array<Record<string, unknown>>;
    if (inCell)
      return h(
        'ul',
        { class: 'rows' },
        rows.map((row) => h('li', null, inline(row))),
      );
    return capped(rows, (shown) => table(shown as Array<Record<string, unknown>>));
  }
  return h(
    'ol',
    { class: 'items' },
    items.map((i) => h('li', null, valueOf(i, inCell))),
  );
}

/** An object on one line: `chance 40 · max level 3 · method walk`; empty lists left out. */
function inline(object: Record<string, unknown>): HTMLElement {
  const entries = Object.entries(object).filter(([, v]) => !(Array.isArray(v) && v.length === 0));
  return h(
    'span',
    { class: 'inline' },
    entries.map(([k, v]) => h('span', { class: 'kv' }, h('span', { class: 'k' }, label(k).toLowerCase()), valueOf(v, true))),
  );
}

function table(rows: Array<Record<string, unknown>>): HTMLElement {
  const columns: string[] = [];
  for (const row of rows) for (const key of Object.keys(row)) if (!columns.includes(key)) columns.push(key);
  // A kind may have more columns than a narrow screen holds: its table then scrolls sideways.
  return h(
    'div',
    { class: 'table-wrap', 'data-scroll': 'x' },
    h(
      'table',
      null,
      h(
        'thead',
        null,
        h(
          'tr',
          null,
          columns.map((c) => h('th', { scope: 'col' }, label(c))),
        ),
      ),
      h(
        'tbody',
        null,
        rows.map((row) =>
          h(
            'tr',
            null,
            columns.map((c) => h('td', { 'data-label': label(c) }, valueOf(row[c], true))),
          ),
        ),
      ),
    ),
  );
}

function fields(object: Record<string, unknown>): HTMLElement {
  return h(
    'dl',
    { class: 'fields' },
    Object.entries(object).map(([k, v]) => h('div', { class: 'field' }, h('dt', null, label(k)), h('dd', null, valueOf(v)))),
  );
}

export interface RecordView {
  kind: string;
  record: ApiRecord;
  apiUrl: string;
  onCopy: (text: string) => Promise<boolean>;
  /** Fields drawn their own way rather than as generic lists and tables. */
  parts?: Record<string, (value: unknown) => HTMLElement>;
  /** Links beside the record's buttons (a type's leads to the type chart). */
  links?: HTMLElement[];
  /** Sections drawn first, under the header: what a record of the kind is looked up for (a creature's stats). */
  lead?: HTMLElement[];
  /** Fields those sections show, left out of the rest. */
  drawn?: string[];
}

export function renderRecord({ kind, record, apiUrl, onCopy, parts = {}, links = [], lead = [], drawn = [] }: RecordView): HTMLElement {
  const types = typeNames(kind, record);
  const accent = types[0] ? typeColour(types[0]) : undefined;
  const images = sprites(record);
  const hero = images.find((s) => !s.icon);

  const facts: HTMLElement[] = [];
  const sections: HTMLElement[] = [];
  const empty: string[] = [];
  for (const [k, v] of Object.entries(record)) {
    if (k === 'id' || k === 'name' || k === 'sprites' || drawn.includes(k)) continue;
    if (Array.isArray(v) && v.length === 0 && !parts[k]) empty.push(label(k));
    else if (isPlain(v)) facts.push(h('div', { class: 'fact' }, h('dt', null, label(k)), h('dd', null, valueOf(v))));
    else sections.push(h('section', { class: 'part', 'data-field': k }, h('h2', null, label(k)), (parts[k] ?? valueOf)(v)));
  }

  const copy = h('button', { class: 'button', type: 'button', 'data-action': 'copy' }, 'Copy API url');
  copy.addEventListener('click', async () => {
    const ok = await onCopy(apiUrl);
    copy.textContent = ok ? 'Copied' : 'Copy failed';
    copy.classList.toggle('done', ok);
    setTimeout(() => {
      copy.textContent = 'Copy API url';
      copy.classList.remove('done');
    }, 1600);
  });

  return h(
    'article',
    { class: 'record', style: accent ? `--accent: ${accent}` : null, 'data-kind': kind, 'data-id': record.id },
    h(
      'header',
      { class: 'record-head' },
      hero ? h('img', { class: 'hero', src: hero.url, alt: `${record.name ?? ''} ${hero.label}`, width: 112, height: 112 }) : null,
      h(
        'div',
        { class: 'titles' },
        h('nav', { class: 'crumbs' }, h('a', { href: `#/${kind}` }, label(kind)), h('span', { class: 'id' }, `#${record.id}`)),
        h('h1', null, displayName(record)),
        typeof record.name === 'string' ? h('p', { class: 'slug' }, h('code', null, record.name)) : null,
        types.length
          ? h(
              'div',
              { class: 'chips' },
              types.map((t) => h('a', { class: 'chip type', href: `#/type/${t}`, style: typeStyle(t) }, t)),
            )
          : null,
      ),
      h(
        'div',
        { class: 'actions' },
        h('code', { class: 'api-url', title: apiUrl }, apiUrl),
        h(
          'div',
          { class: 'buttons' },
          links,
          copy,
          h('a', { class: 'button quiet', href: apiUrl, target: '_blank', rel: 'noopener' }, 'JSON'),
        ),
      ),
    ),
    lead,
    images.length
      ? h(
          'section',
          { class: 'part gallery-part' },
          h('h2', null, 'Sprites'),
          h(
            'div',
            { class: 'gallery' },
            images.map((s) =>
              h(
                'figure',
                { class: s.icon ? 'sprite icon' : 'sprite' },
                h('img', { src: s.url, alt: s.label, loading: 'lazy' }),
                h('figcaption', null, s.label),
              ),
            ),
          ),
        )
      : null,
    facts.length ? h('section', { class: 'part' }, h('dl', { class: 'facts' }, facts)) : null,
    sections,
    empty.length ? h('p', { class: 'empty-lists' }, h('span', null, 'No entries: '), empty.join(' · ')) : null,
    rawJson(record),
  );
}

function rawJson(record: ApiRecord): HTMLElement {
  // Lines of JSON keep their indentation whole: the block scrolls sideways rather than wrap them.
  const pre = h('pre', { class: 'json', 'data-scroll': 'x' });
  const details = h('details', { class: 'raw' }, h('summary', null, 'Raw JSON'), pre);
  // Drawn on first opening: a large record costs nothing until someone asks for it.
  details.addEventListener('toggle', () => {
    if (details.open && !pre.textContent) pre.textContent = JSON.stringify(record, null, 2);
  });
  return details;
}
