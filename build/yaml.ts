// The careful YAML parser (`yaml`), loaded when first needed: it reads documents with anchors and
// finds the place of a problem, and a build that meets neither, or a rebuild that changes nothing,
// need not load it.
import { createRequire } from 'node:module';

type Yaml = typeof import('yaml');
const require = createRequire(import.meta.url);
let loaded: Yaml | undefined;

export const yaml = (): Yaml => (loaded ??= require('yaml') as Yaml);
