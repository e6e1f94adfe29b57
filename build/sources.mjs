// The build's own code files, as the launcher's bundle key and the build's fingerprint list them.
// Written as JavaScript because the launcher, which runs before any TypeScript is compiled, lists them.
import fs from 'node:fs';
import path from 'node:path';

/**
 * The code files under `dir` (`.ts`, `.mts`, `.mjs`), by their paths relative to it with `/`
 * between folders, in order. A walk of the folders: Node's recursive `readdirSync` took some 5 ms
 * on its first call in a process, and every command lists these (docs/PERFORMANCE.md, "Fixed costs of a process").
 * @param {string} dir
 * @returns {string[]}
 */
export function codeFiles(dir) {
  /** @type {string[]} */
  const out = [];
  /** @param {string} rel */
  const walk = (rel) => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      const name = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(name);
      else if (/\.(ts|mts|mjs)$/.test(entry.name)) out.push(name);
    }
  };
  walk('');
  return out.sort();
}
