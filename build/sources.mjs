// Folders walked for their files: the build's own code, which the launcher's bundle key and the
// build's fingerprint hash, and the explorer's sources. Written as JavaScript because the launcher,
// which runs before any TypeScript is compiled, lists the code.
import fs from 'node:fs';
import path from 'node:path';

/**
 * What `dir` holds but folders, at any depth, by paths relative to it with `/` between folders, in
 * order; links to folders are not followed, and an entry `passOver` gives is left out. A walk of the
 * folders: Node's recursive `readdirSync` took some 5 ms on its first call in a process, and fast-glob's
 * first call more, and every command lists these (docs/PERFORMANCE.md, "Fixed costs of a process").
 * @param {string} dir
 * @param {(entry: fs.Dirent) => boolean} [passOver]
 * @returns {string[]}
 */
export function filesIn(dir, passOver = () => false) {
  /** @type {string[]} */
  const out = [];
  /** @param {string} rel */
  const walk = (rel) => {
    for (const entry of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
      if (passOver(entry)) continue;
      const name = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(name);
      else out.push(name);
    }
  };
  walk('');
  return out.sort();
}

/**
 * The code files under `dir` (`.ts`, `.mts`, `.mjs`), as `filesIn` gives them.
 * @param {string} dir
 * @returns {string[]}
 */
export const codeFiles = (dir) => filesIn(dir).filter((file) => /\.(ts|mts|mjs)$/.test(file));
