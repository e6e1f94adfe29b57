// The project's ESLint configuration holds build/ to its layers (docs/ARCHITECTURE.md, Layout): a
// module placed in a low layer that imports from a higher one, or from another folder of its own
// layer, fails lint; the same import from above passes.
import path from 'node:path';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../build/paths.ts';

const eslint = new ESLint({ cwd: projectRoot });

/** The layering errors ESLint reports for `code` as if it were the file `rel` (which need not exist). */
async function layerErrors(rel: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(projectRoot, rel) });
  return result!.messages.filter((m) => m.ruleId === 'import-x/no-restricted-paths').map((m) => m.message);
}

describe('the layers of build/', () => {
  it('refuse an import from a higher layer', async () => {
    const errors = await layerErrors('build/incremental/probe.ts', "export type { Op } from '../output/place.ts';\n");
    expect(errors).toEqual([expect.stringContaining('build/incremental may import only from the layers below it')]);
  });

  it('refuse an import from another folder of the same layer', async () => {
    expect(await layerErrors('build/site/probe.ts', "export type { Op } from '../output/place.ts';\n")).toHaveLength(1);
  });

  it('keep the lowest layer to its own files', async () => {
    const code = "export { fileStart } from './report/problems.ts';\nexport { hashText } from './hash.ts';\n";
    expect(await layerErrors('build/store.ts', code)).toEqual([expect.stringContaining('the lowest layer of build/')]);
  });

  it('let a higher layer import from a lower one', async () => {
    expect(
      await layerErrors('build/output/probe.ts', "export type { Op } from './place.ts';\nexport { hashText } from '../hash.ts';\n"),
    ).toEqual([]);
    expect(await layerErrors('build/pipeline/probe.ts', "export type { Op } from '../output/place.ts';\n")).toEqual([]);
  });
});

describe('what lint reads', () => {
  it('passes over every output folder, as .gitignore does: built bundles are not source', async () => {
    for (const rel of ['dist/assets/index.js', '.dist-builds/a/_worker.js', '.dist-serve/localhost-3456-8daca32f/_worker.js'])
      expect(await eslint.isPathIgnored(path.join(projectRoot, rel)), rel).toBe(true);
    expect(await eslint.isPathIgnored(path.join(projectRoot, 'build/cli/start.ts'))).toBe(false);
  });
});
