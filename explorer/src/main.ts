// The explorer: pick a kind, search its records, open one, follow its links. Routes live in the
// hash (`#/type`, `#/type?q=fi`, `#/type/10`, `#/type-chart?generation=generation-i`), so any static
// host can serve the page.
import './style.css';
import * as api from './api.ts';
import { fill, h, label } from './dom.ts';
import { renderTypeChart, type ChartType, type Era } from './chart.ts';
import { creatureView, loadDex } from './creature.ts';
import { renderEncounters } from './encounters.ts';
import { renderChain, type ChainLink } from './evolution.ts';
import { displayName, renderRecord, routeOf, typeStyle, valueBox, type RecordView } from './record.ts';
import { prepare, search, type Entry } from './search.ts';
import { watchBuild } from './status.ts';
import type { Type } from '../../build/api-types.ts';

/** Results drawn at once; more on request. Keeps the largest kinds as quick as the smallest. */
const PAGE = 100;
/** The type chart's route: not a kind, a view over every type. */
const CHART = 'type-chart';
/** The world's title, which the build writes into the page (its settings file, data/world.yaml). */
const WORLD = document.querySelector<HTMLMetaElement>('meta[name="application-name"]')?.content ?? '';

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const layout = $<HTMLElement>('layout');
const kindSelect = $<HTMLSelectElement>('kind');
const searchBox = $<HTMLInputElement>('search');
const count = $<HTMLElement>('count');
const results = $<HTMLOListElement>('results');
const more = $<HTMLButtonElement>('more');
const view = $<HTMLElement>('view');

interface Route {
  kind?: string;
  key?: string;
  q?: string;
  generation?: string;
}

const state = {
  kinds: [] as string[],
  kind: '',
  entries: [] as Entry[],
  matches: [] as Entry[],
  /** The query `matches` answers. */
  searched: '',
  shown: PAGE,
  key: undefined as string | undefined,
  /** Set when the data was rebuilt: the list is fetched again, the search kept. */
  stale: false,
  /** Bumped on every navigation, so a slow answer never draws over a newer view. */
  seq: 0,
};

function parseHash(): Route {
  const m = /^#\/([a-z0-9-]+)?(?:\/([^?]+))?(?:\?(.*))?$/.exec(location.hash);
  if (!m) return {};
  const params = new URLSearchParams(m[3] ?? '');
  return {
    kind: m[1],
    key: m[2] ? decodeURIComponent(m[2]) : undefined,
    q: params.get('q') ?? undefined,
    generation: params.get('generation') ?? undefined,
  };
}

async function route(): Promise<void> {
  const seq = ++state.seq;
  const { kind, key, q, generation } = parseHash();
  if (!state.kinds.length) state.kinds = await api.kinds();
  fillKinds();
  if (kind === CHART && state.kinds.includes('type')) {
    leaveKinds('chart', `Type chart · ${WORLD}`);
    return showChart(generation, seq);
  }
  if (!kind || !state.kinds.includes(kind)) {
    leaveKinds('home', `${WORLD} · API explorer`);
    return showHome();
  }
  layout.dataset.view = key ? 'record' : 'list';
  searchBox.disabled = false;
  await selectKind(kind, q);
  if (seq !== state.seq) return;
  state.key = key;
  markCurrent();
  if (key) await showRecord(kind, key, seq);
  else showKind(kind);
}

/** For the views that are not a kind's: no kind picked, nothing to search. */
function leaveKinds(view: string, title: string): void {
  layout.dataset.view = view;
  kindSelect.value = '';
  state.kind = '';
  searchBox.value = '';
  searchBox.disabled = true;
  searchBox.placeholder = 'Pick a kind to search it';
  document.title = title;
}

function fillKinds(): void {
  if (kindSelect.options.length > 1) return;
  kindSelect.append(...state.kinds.map((k) => h('option', { value: k }, label(k))));
}

async function selectKind(kind: string, q: string | undefined): Promise<void> {
  if (q !== undefined) searchBox.value = q;
  if (kind === state.kind && !state.stale) {
    if (q !== undefined) runSearch();
    return;
  }
  if (kind !== state.kind) {
    state.kind = kind;
    kindSelect.value = kind;
    if (q === undefined) searchBox.value = '';
    searchBox.placeholder = 'Search by name or id';
    count.textContent = 'Loading…';
    results.replaceChildren();
    more.hidden = true;
  }
  state.stale = false;
  const list = await api.list(kind);
  if (state.kind !== kind) return;
  state.entries = prepare(list.results);
  runSearch();
}

function runSearch(): void {
  const started = performance.now();
  state.searched = searchBox.value;
  state.matches = search(state.entries, searchBox.value);
  state.shown = PAGE;
  drawResults();
  results.dataset.ms = (performance.now() - started).toFixed(1);
}

function drawResults(): void {
  const { matches, entries, shown, kind } = state;
  const query = searchBox.value.trim();
  count.textContent = query
    ? `${matches.length.toLocaleString()} of ${entries.length.toLocaleString()} match “${query}”`
    : `${entries.length.toLocaleString()} ${entries.length === 1 ? 'record' : 'records'}`;
  results.replaceChildren(
    ...matches.slice(0, shown).map((e) =>
      h(
        'li',
        null,
        h(
          'a',
          { href: routeOf(kind, e.id), 'data-id': e.id, 'data-name': e.ref.name ?? null },
          kind === 'type' && e.ref.name ? h('span', { class: 'dot', style: typeStyle(e.ref.name) }) : null,
          // A record that publishes no name (a characteristic) goes by its url.
          h('span', { class: 'name' }, e.ref.name ?? api.apiPathOf(e.ref.url) ?? e.ref.url),
          h('span', { class: 'id' }, `#${e.id}`),
        ),
      ),
    ),
  );
  if (matches.length === 0) results.append(h('li', { class: 'none' }, 'Nothing matches. Try part of a name, or an id.'));
  const rest = matches.length - shown;
  more.hidden = rest <= 0;
  more.textContent = `Show ${Math.min(rest, PAGE)} more (${rest.toLocaleString()} left)`;
  markCurrent();
}

function markCurrent(): void {
  for (const a of results.querySelectorAll('a')) {
    if (a.dataset.id === state.key || a.dataset.name === state.key) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
}

function showHome(): void {
  fill(
    view,
    h(
      'section',
      { class: 'home' },
      h('h1', null, 'Every creature, type and move, one link away.'),
      h(
        'p',
        { class: 'lede' },
        'A static JSON API built from plain YAML records. Pick a kind to browse it, search by name or id, and follow any reference to the record it names.',
      ),
      state.kinds.includes('type')
        ? h(
            'p',
            null,
            h('a', { class: 'button', href: `#/${CHART}` }, 'Type chart'),
            ' Every type against every type, now and in past generations.',
          )
        : null,
      h(
        'p',
        null,
        'Every record of a kind in one download: ',
        h('code', null, 'api/v2/<kind>/all.ndjson'),
        ', each listed at ',
        h('a', { href: api.ndjsonListUrl(), 'data-action': 'ndjson-list' }, 'api/v2/ndjson/'),
        '.',
      ),
      h(
        'div',
        { class: 'kinds' },
        state.kinds.map((k) =>
          h('a', { class: 'kind-card', href: `#/${k}` }, h('span', { class: 'kind-name' }, label(k)), h('code', null, `api/v2/${k}/`)),
        ),
      ),
    ),
  );
}

function showKind(kind: string): void {
  document.title = `${label(kind)} · ${WORLD}`;
  const listUrl = api.pageUrl(`${kind}/`);
  fill(
    view,
    h(
      'section',
      { class: 'kind-intro' },
      h('h1', null, label(kind)),
      h('p', { class: 'lede' }, `${state.entries.length.toLocaleString()} records. Search by name or id, or pick one from the list.`),
      h(
        'p',
        null,
        h('a', { class: 'button quiet', href: listUrl, target: '_blank', rel: 'noopener' }, 'List as JSON'),
        ' ',
        h('code', null, listUrl),
      ),
      h(
        'p',
        null,
        h('a', { class: 'button quiet', href: api.ndjsonUrl(kind), download: '', 'data-action': 'ndjson' }, 'All records (NDJSON)'),
        ' Every record of the kind in one file, one a line.',
      ),
    ),
  );
}

async function showRecord(kind: string, key: string, seq: number): Promise<void> {
  view.setAttribute('aria-busy', 'true');
  try {
    const record = await api.record(kind, key);
    const more = await extras(kind, record);
    if (seq !== state.seq) return;
    document.title = `${displayName(record)} · ${label(kind)} · ${WORLD}`;
    const article = renderRecord({ kind, record, apiUrl: api.recordApiUrl(kind, record.id), onCopy: copyText, ...more });
    fill(view, article);
    state.key = String(record.id);
    markCurrent();
    // Where the record takes the list's place (a narrow screen), the window scrolls, not the view.
    if (layout.dataset.view === 'record' && results.getClientRects().length === 0) window.scrollTo(0, 0);
    else view.scrollTop = 0;
  } catch (err) {
    if (seq !== state.seq) return;
    const missing = err instanceof api.NotFound;
    fill(
      view,
      h(
        'section',
        { class: 'kind-intro' },
        h('h1', null, missing ? 'Not found' : 'Could not load this record'),
        h('p', { class: 'lede' }, missing ? `There is no ${label(kind).toLowerCase()} “${key}”.` : String(err)),
        h('p', null, h('a', { href: `#/${kind}` }, `Back to ${label(kind).toLowerCase()}`)),
      ),
    );
  } finally {
    view.removeAttribute('aria-busy');
  }
}

/**
 * What a kind's record shows besides its fields: a type links to the chart, an area's encounters
 * are tables by version, a creature is shown as a Pokédex shows it, with what it reads of other
 * records, a chain is a tree, and a form's trigger conditions are whole.
 */
async function extras(kind: string, record: api.ApiRecord): Promise<Pick<RecordView, 'parts' | 'links' | 'lead' | 'drawn'>> {
  if (kind === 'type') return { links: [h('a', { class: 'button quiet', href: `#/${CHART}`, 'data-action': 'chart' }, 'Type chart')] };
  if (kind === 'location-area') return { parts: { creature_encounters: renderEncounters } };
  if (kind === 'creature') return creatureView(await loadDex(record));
  if (kind === 'evolution-chain') return { parts: { chain: (chain) => renderChain(chain as ChainLink) } };
  if (kind === 'creature-form') return formParts(record);
  return {};
}

/**
 * A form's trigger conditions as its sub-resource gives them whole, where that holds more than the
 * form: a condition naming no record (gigantamax-factor) is left out of the form's own list.
 */
async function formParts(record: api.ApiRecord): Promise<Pick<RecordView, 'parts'>> {
  const whole = await api.atUrl<unknown>(`${api.recordApiUrl('creature-form', record.id)}trigger-conditions/`).catch(() => undefined);
  const own = Array.isArray(record.trigger_conditions) ? record.trigger_conditions : [];
  if (!Array.isArray(whole) || whole.length <= own.length) return {};
  return { parts: { trigger_conditions: () => valueBox(whole) } };
}

async function showChart(generation: string | undefined, seq: number): Promise<void> {
  view.setAttribute('aria-busy', 'true');
  try {
    // Every type record at once, in parallel; the api module keeps them for the next visit.
    const [types, generations] = await Promise.all([api.records('type'), api.records('generation')]);
    if (seq !== state.seq) return;
    const eras: Era[] = [
      { label: 'Today' },
      ...generations.sort((a, b) => a.id - b.id).map((g) => ({ name: g.name, id: g.id, label: displayName(g) })),
    ];
    const era = eras.find((e) => e.name === generation) ?? eras[0]!;
    const onPick = (picked: Era) =>
      history.replaceState(null, '', `#/${CHART}${picked.name ? `?generation=${encodeURIComponent(picked.name)}` : ''}`);
    fill(view, renderTypeChart({ types: types.map(chartType), eras, era, onPick }));
  } catch (err) {
    if (seq !== state.seq) return;
    fill(
      view,
      h('section', { class: 'kind-intro' }, h('h1', null, 'Could not load the type chart'), h('p', { class: 'lede' }, String(err))),
    );
  } finally {
    view.removeAttribute('aria-busy');
  }
}

function chartType(record: api.ApiRecord): ChartType {
  return { ref: { name: record.name ?? String(record.id), url: api.recordApiUrl('type', record.id) }, record: record as unknown as Type };
}

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    // No clipboard API (an insecure origin): select the text and copy it the old way.
    const area = h('textarea', { class: 'offscreen', readonly: true });
    area.value = text;
    document.body.append(area);
    area.select();
    const ok = document.execCommand('copy');
    area.remove();
    return ok;
  }
}

kindSelect.addEventListener('change', () => {
  location.hash = kindSelect.value ? `#/${kindSelect.value}` : '#/';
});

let pending = 0;
searchBox.addEventListener('input', () => {
  cancelAnimationFrame(pending);
  pending = requestAnimationFrame(() => {
    runSearch();
    if (layout.dataset.view !== 'record') {
      const q = searchBox.value.trim();
      history.replaceState(null, '', `#/${state.kind}${q ? `?q=${encodeURIComponent(q)}` : ''}`);
    }
  });
});

searchBox.addEventListener('keydown', (event) => {
  if (event.key !== 'Enter') return;
  // Enter may come before the frame that runs the search for the last keystroke.
  if (state.searched !== searchBox.value) {
    cancelAnimationFrame(pending);
    runSearch();
  }
  const first = state.matches[0];
  if (first) location.hash = routeOf(state.kind, first.id);
});

document.addEventListener('keydown', (event) => {
  if (event.key === '/' && document.activeElement !== searchBox && !(event.target instanceof HTMLInputElement)) {
    event.preventDefault();
    searchBox.focus();
  }
});

more.addEventListener('click', () => {
  state.shown += PAGE;
  drawResults();
});

window.addEventListener('hashchange', () => void route());

watchBuild(() => {
  api.forget();
  state.stale = true;
  void route();
});

void route().catch((err) => {
  fill(view, h('section', { class: 'kind-intro' }, h('h1', null, 'The API did not answer'), h('p', { class: 'lede' }, String(err))));
});
