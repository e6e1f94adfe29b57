// `npx tsx build/tools/editor-capture.ts`: the README's picture of completing a reference, taken from
// the real YAML language server: data/ is built into a scratch workspace with the project's editor
// settings, the server is asked for completion after `generation: ` in data/type/fire.yaml, and its
// answer is drawn as text into the README. A test fails when the README's picture is stale.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CompletionItem } from 'vscode-languageserver-protocol/node.js';
import { defaults } from '../config.ts';
import { build } from '../pipeline/build.ts';
import { defaultDataDir, projectRoot } from '../paths.ts';
import { startYamlServer } from './yaml-server.ts';

export const readmeFile = path.join(projectRoot, 'README.md');
/** The README's picture is the fenced block after the paragraph ending with these words. */
const LEAD = 'as the language server answers it:';
const PICTURE = new RegExp(`${LEAD}\\n\\n\`\`\`text\\n([\\s\\S]*?)\`\`\`\\n`);

/** The project's `yaml` editor settings, as VS Code reads them from `.vscode/settings.json`. */
export function editorSettings(): { schemas: Record<string, string[]> } {
  const settings = JSON.parse(fs.readFileSync(path.join(projectRoot, '.vscode', 'settings.json'), 'utf8')) as Record<string, unknown>;
  return { schemas: settings['yaml.schemas'] as Record<string, string[]> };
}

/**
 * A scratch workspace laid out as the project is: `data/` (a copy of `dataDir`), the editor settings,
 * the committed source schemas, and the names copy a build of that data keeps. Returns its folder.
 */
export async function editorWorkspace(dataDir: string, root = fs.mkdtempSync(path.join(os.tmpdir(), 'crs-editor-'))): Promise<string> {
  fs.cpSync(dataDir, path.join(root, 'data'), { recursive: true });
  fs.cpSync(path.join(projectRoot, '.vscode'), path.join(root, '.vscode'), { recursive: true });
  fs.cpSync(path.join(projectRoot, 'schemas', 'source'), path.join(root, 'schemas', 'source'), { recursive: true });
  await build({
    dataDir: path.join(root, 'data'),
    outDir: path.join(root, 'dist'),
    baseUrl: defaults.baseUrl,
    editorSchemas: path.join(root, '.editor-schemas'),
  });
  return root;
}

/** What completing after `<field>: ` on a record's line offers, drawn as an editor shows it: the line, the list under the caret. */
export function drawCompletion(lineNumber: number, typed: string, items: CompletionItem[]): string {
  const gutter = String(lineNumber);
  const labels = items.map((item) => item.label).join('  ');
  return `${gutter} │ ${typed}▮\n${' '.repeat(gutter.length)} │ ${' '.repeat(typed.length)}${labels}\n`;
}

/** The server's answer to completion after `generation: ` in data/type/fire.yaml of `root`, drawn. */
export async function captureCompletion(root: string): Promise<string> {
  const file = path.join(root, 'data', 'type', 'fire.yaml');
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const at = lines.findIndex((line) => line.startsWith('generation:'));
  const typed = 'generation: ';
  lines[at] = typed;
  const server = await startYamlServer(root, editorSettings());
  try {
    await server.open(file, lines.join('\n'));
    return drawCompletion(at + 1, typed, await server.complete(file, { line: at, character: typed.length }));
  } finally {
    await server.stop();
  }
}

/** The picture in the README now. */
export function readmePicture(readme = fs.readFileSync(readmeFile, 'utf8')): string | undefined {
  return PICTURE.exec(readme)?.[1];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const root = await editorWorkspace(defaultDataDir);
  try {
    const picture = await captureCompletion(root);
    const readme = fs.readFileSync(readmeFile, 'utf8');
    if (readmePicture(readme) === undefined) throw new Error(`README.md has no \`\`\`text block after "${LEAD}"`);
    fs.writeFileSync(
      readmeFile,
      readme.replace(PICTURE, () => `${LEAD}\n\n\`\`\`text\n${picture}\`\`\`\n`),
    );
    console.log(`README.md: completion after "generation: " offers\n${picture}`);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
