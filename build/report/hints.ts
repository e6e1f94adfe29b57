// Words for problems: the nearest name to a misspelt one, and a value shown briefly.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * The candidate nearest to `word`, for a hint. The library is loaded on first use, by a build with
 * a problem to report: importing it cost every build a few milliseconds.
 */
export function nearest(word: string, candidates: string[]): string {
  return (require('fastest-levenshtein') as typeof import('fastest-levenshtein')).closest(word, candidates);
}

export function show(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'a mapping';
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? value.slice(0, 57) + '...' : value);
  return String(value);
}
