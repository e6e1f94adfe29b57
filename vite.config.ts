// The explorer: a static page under explorer/, built to index.html + assets/ at the root of the
// published site. Relative base, so the site can be hosted under any sub-path.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig, type Plugin } from 'vite';

const root = path.dirname(fileURLToPath(import.meta.url));

/**
 * The page takes its type colours from build/sprites.ts. That module also imports build/paths.ts,
 * which reads node:path and node:url when it loads; the page never calls the functions that use
 * it, so in the browser it gets an empty stand-in.
 */
const spritesInTheBrowser: Plugin = {
  name: 'sprites-in-the-browser',
  enforce: 'pre',
  resolveId(source, importer) {
    if (source === './paths.ts' && importer?.replaceAll('\\', '/').endsWith('/build/sprites.ts')) return '\0paths-in-the-browser';
  },
  load(id) {
    if (id === '\0paths-in-the-browser') return 'export const apiPaths = {};';
  },
};

export default defineConfig({
  plugins: [spritesInTheBrowser],
  root: path.join(root, 'explorer'),
  base: './',
  appType: 'spa',
  publicDir: false,
  clearScreen: false,
  build: {
    outDir: path.join(root, 'node_modules/.cache/explorer/out'),
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    reportCompressedSize: false,
  },
  server: {
    // The explorer imports the type colours from build/sprites.ts.
    fs: { allow: [root] },
  },
});
