// pokenode-ts and pokedex-promise-v2 call every endpoint they know, through the renaming an app puts
// in front of them (README "Clients"), against the shipped world (data/) built and served on
// loopback. Each answer is the record the build wrote, renamed back, and is checked by the compiler
// against the type its method declares (clients-suite.ts). Here a few records of each kind are asked
// for, so that each field a kind has is met; in the slow suite, every record, of the shipped world
// and of an import of PokeAPI's own records (clients-every-record.test.ts).
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { CLIENT_TYPES, FORCED, SHIPPED } from './clients-disagreements.ts';
import { clientSuite } from './clients-suite.ts';

clientSuite({
  worlds: ['shipped'],
  every: false,
  disagreements: () => [...FORCED, ...CLIENT_TYPES, ...SHIPPED],
});

it('README "Clients" gives the renaming the tests use, line for line', () => {
  const root = path.resolve(import.meta.dirname, '..');
  const helper = fs.readFileSync(path.join(root, 'test', 'client-renaming.ts'), 'utf8');
  const from = helper.indexOf('const ours');
  const code = helper.slice(from, helper.indexOf('\n};', from) + 3);
  const lines = code.split('\n').filter((line) => line !== '// prettier-ignore');
  expect(lines.length).toBeGreaterThan(5);
  expect(fs.readFileSync(path.join(root, 'README.md'), 'utf8')).toContain(lines.join('\n').replace('export const', 'const'));
});
