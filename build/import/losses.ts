// What the source format cannot hold as PokeAPI states it, gathered as the records are mapped: each
// fold, substitution or drop by category, kind and field, with every record it touched.

/** What became of a PokeAPI fact the source format cannot hold as it is. */
export type Action = 'folded' | 'substituted' | 'dropped';

export interface Loss {
  action: Action;
  category: string;
  kind: string;
  field: string;
  /** The records it happened in, once each, as `<name>` of the kind (the id where a record has no name). */
  records: string[];
  /** How many times it happened (several in one record count once each). */
  count: number;
}

/** The meaning of each category, for the report. */
export const CATEGORIES: Record<string, string> = {
  'encounter-details':
    'a PokeAPI version detail with several encounter details became one version detail per encounter (the specification holds one object)',
  'null-reference':
    'a null reference the specification requires (a type\u2019s or a stat\u2019s move damage class) becomes the first record of its kind by id',
  'characteristic-name': 'a characteristic (PokeAPI gives it no name) is named after its English description, or characteristic-<id>',
  'contest-effect-name': 'a contest effect (PokeAPI gives it no name) is named after its English effect, or contest-effect-<id>',
  'super-contest-effect-name':
    'a super contest effect (PokeAPI gives it no name) is named after its English flavor text, or super-contest-effect-<id>',
  'duplicate-name': 'a record named as another of its kind with a lower id is named <name>-<id>: a name is unique within its kind',
  'evolution-from-chain':
    'a species whose evolution_chain, evolves_from_species or is_baby says otherwise than its chain\u2019s tree takes the tree\u2019s (the build makes the tree from the species)',
  'evolution-outside-import':
    'a species whose chain\u2019s tree passes through a species not imported is in no chain (evolving from none where that species is the one before it); a chain left with no species is not written',
  'gender-to-evolve': 'a species PokeAPI lists under several genders needed to evolve keeps the first (the source names one)',
  'trigger-condition': 'a form trigger condition the source format cannot hold (no record named, or a word it does not know)',
  'trigger-condition-unnamed':
    'a form trigger condition naming no record (gigantamax-factor) is kept with its word alone: the form leaves it out of its trigger_conditions (the specification\u2019s condition names a record), and its trigger-conditions sub-resource gives it',
  'reference-to-missing-record': 'a reference to a record that is not among those imported',
  'reference-to-other-kind': 'a reference to a kind the source format does not expect there (such as an unpublished kind)',
  'field-not-in-schema': 'a field the kind\u2019s schema does not have (most hold kinds this API does not publish)',
  'empty-version-detail': 'a version detail with no encounter details: the specification needs one',
};

export class Losses {
  readonly #byKey = new Map<string, Omit<Loss, 'records'> & { records: Set<string> }>();

  add(action: Action, category: string, kind: string, field: string, record: string): void {
    const key = `${action}\0${category}\0${kind}\0${field}`;
    let loss = this.#byKey.get(key);
    if (!loss) this.#byKey.set(key, (loss = { action, category, kind, field, records: new Set(), count: 0 }));
    loss.count++;
    loss.records.add(record);
  }

  /** Every loss, in a fixed order: by action, category, kind and field. */
  list(): Loss[] {
    return [...this.#byKey.entries()]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, loss]) => ({ ...loss, records: [...loss.records] }));
  }
}
