// A thread's entry when the build runs from its TypeScript sources (the tests, the tools run by tsx):
// it runs the thread entry of the launcher's bundle of these same sources, made now if there is
// none. Loading the sources through tsx in each thread cost more than a small world's whole build.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleOfSources } from './launch.mjs';

await import(pathToFileURL(path.join(await bundleOfSources(), 'thread-entry.js')).href);
