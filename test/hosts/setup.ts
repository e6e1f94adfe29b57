// Global setup of the hosts tests: build the starter world once into a temp site folder.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { build } from '../../build/pipeline/build.ts';
import { placeHostFiles, SITE_BASE_URL } from './site.ts';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'crs-hosts-'));
  const dist = path.join(root, 'dist');
  try {
    // Not through ../helpers.ts: that module registers test hooks, and this runs outside any test file.
    await build({ dataDir: path.join(import.meta.dirname, '..', 'fixtures', 'starter'), outDir: dist, baseUrl: SITE_BASE_URL });
    await placeHostFiles(dist);
  } catch (err) {
    await fs.rm(root, { recursive: true, force: true });
    throw err;
  }
  project.provide('siteRoot', root);
  return () => fs.rm(root, { recursive: true, force: true });
}
