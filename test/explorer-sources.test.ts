// The explorer's cached build is keyed by the files it is built from: every file under its folder,
// at any depth, but for hidden files, installed packages and links.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { filesUnder } from '../build/site/explorer.ts';
import { tempDir } from './helpers.ts';

describe("the explorer's sources", () => {
  it('are the files at every depth, not hidden ones, nor installed packages, nor what a link leads to', async () => {
    const root = await tempDir();
    const files = ['index.html', 'src/main.ts', 'src/deep/er/style.css', 'tsconfig.json'];
    const passedOver = ['.env', '.cache/x.js', 'src/.hidden.ts', 'node_modules/pkg/index.js', 'src/node_modules/a.js'];
    for (const rel of [...files, ...passedOver]) {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), rel);
    }
    fs.mkdirSync(path.join(root, 'empty'));
    fs.symlinkSync(path.join(root, 'src'), path.join(root, 'linked-folder'));
    fs.symlinkSync(path.join(root, 'index.html'), path.join(root, 'linked-file.html'));
    expect(filesUnder(root).sort()).toEqual(files.map((rel) => path.join(root, rel)).sort());
  });
});
