// The slow suite's sweep of both PokeAPI clients (clients-suite.ts): every record of every kind of
// both worlds asked for by id, by name and in lists, through the renaming, and every answer checked
// by the compiler against the type its method declares. clients-every-endpoint.test.ts, in npm test,
// asks for a few records of each kind.
import { CLIENT_TYPES, EVERY_POKEAPI, EVERY_SHIPPED, FORCED, POKEAPI, SHIPPED } from './clients-disagreements.ts';
import { clientSuite } from './clients-suite.ts';

clientSuite({
  worlds: ['shipped', 'pokeapi'],
  every: true,
  disagreements: (world) => [
    ...FORCED,
    ...CLIENT_TYPES,
    ...(world === 'shipped' ? [...SHIPPED, ...EVERY_SHIPPED] : [...POKEAPI, ...EVERY_POKEAPI]),
  ],
});
