// The explorer: a static page under explorer/, built to index.html + assets/ at the root of the
// published site. Relative base, so the site can be hosted under any sub-path.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
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
  // The page has no npm dependencies to pre-bundle.
  optimizeDeps: { noDiscovery: true },
  server: {
    // The dev server may read the explorer's sources and the two modules it imports from build/
    // (vite adds its own client), not the rest of the project: any page of another localhost
    // origin could read the data, the build and its manifests under /@fs/.
    fs: {
      strict: true,
      allow: [path.join(root, 'explorer'), path.join(root, 'build/site/colour.ts'), path.join(root, 'build/site/dev-status.ts')],
    },
  },
});
