// A client of the real YAML language server (the one VS Code's YAML extension and other editors
// run), spoken to over its stdio protocol as an editor does: for the tests of the editor schemas
// and for the README's capture of what completing a reference offers.
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  CompletionRequest,
  ConfigurationRequest,
  createProtocolConnection,
  DidChangeWatchedFilesNotification,
  DidOpenTextDocumentNotification,
  ExitNotification,
  FileChangeType,
  HoverRequest,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  ShutdownRequest,
  StreamMessageReader,
  StreamMessageWriter,
  type CompletionItem,
  type Diagnostic,
  type Hover,
  type Position,
} from 'vscode-languageserver-protocol/node.js';

export interface YamlServer {
  /** Opens a file's text as an editor does and answers the diagnostics the server publishes for it. */
  open(file: string, text?: string): Promise<Diagnostic[]>;
  complete(file: string, position: Position): Promise<CompletionItem[]>;
  hover(file: string, position: Position): Promise<Hover | null>;
  /** Tells the server files changed on disk, as an editor's file watcher does (a schema, say). */
  changed(files: string[]): Promise<Diagnostic[][]>;
  stop(): Promise<void>;
}

const serverBin = () =>
  path.join(path.dirname(createRequire(import.meta.url).resolve('yaml-language-server/package.json')), 'bin', 'yaml-language-server');
const uriOf = (file: string) => pathToFileURL(file).href;

/**
 * Starts the server on a workspace folder with the `yaml` settings an editor would send (as in
 * `.vscode/settings.json`, relative schema paths resolved against the folder).
 */
export async function startYamlServer(root: string, yaml: Record<string, unknown>): Promise<YamlServer> {
  const child = spawn(process.execPath, [serverBin(), '--stdio'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const connection = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));
  const published = new Map<string, (diagnostics: Diagnostic[]) => void>();
  connection.onNotification(PublishDiagnosticsNotification.type, ({ uri, diagnostics }) => {
    published.get(uri)?.(diagnostics);
    published.delete(uri);
  });
  let configured!: () => void;
  const pulled = new Promise<void>((resolve) => (configured = resolve));
  connection.onRequest(ConfigurationRequest.type, ({ items }) => {
    configured();
    return items.map((item) => (item.section === 'yaml' ? { validate: true, completion: true, hover: true, ...yaml } : {}));
  });
  connection.listen();
  await connection.sendRequest(InitializeRequest.type, {
    processId: process.pid,
    rootUri: uriOf(root),
    workspaceFolders: [{ uri: uriOf(root), name: path.basename(root) }],
    capabilities: { workspace: { configuration: true }, textDocument: { completion: { completionItem: { snippetSupport: true } } } },
  });
  await connection.sendNotification(InitializedNotification.type, {});
  await pulled;
  const nextDiagnostics = (file: string) => new Promise<Diagnostic[]>((resolve) => published.set(uriOf(file), resolve));
  const opened = new Set<string>();
  return {
    async open(file, text = fs.readFileSync(file, 'utf8')) {
      const diagnostics = nextDiagnostics(file);
      await connection.sendNotification(DidOpenTextDocumentNotification.type, {
        textDocument: { uri: uriOf(file), languageId: 'yaml', version: 1, text },
      });
      opened.add(file);
      return diagnostics;
    },
    async complete(file, position) {
      const answer = await connection.sendRequest(CompletionRequest.type, { textDocument: { uri: uriOf(file) }, position });
      return Array.isArray(answer) ? answer : (answer?.items ?? []);
    },
    hover: (file, position) => connection.sendRequest(HoverRequest.type, { textDocument: { uri: uriOf(file) }, position }),
    async changed(files) {
      const diagnostics = Promise.all([...opened].map(nextDiagnostics));
      const changes = files.map((file) => ({ uri: uriOf(file), type: FileChangeType.Changed }));
      await connection.sendNotification(DidChangeWatchedFilesNotification.type, { changes });
      return diagnostics;
    },
    async stop() {
      await connection.sendRequest(ShutdownRequest.type);
      await connection.sendNotification(ExitNotification.type);
      connection.dispose();
      if (child.exitCode === null) await new Promise((resolve) => child.once('exit', resolve));
    },
  };
}
