// A thread's entry when the build runs from its TypeScript sources: loads thread-entry.ts through tsx.
import { tsImport } from 'tsx/esm/api';

await tsImport('./thread-entry.ts', import.meta.url);
