// The one hash of a text the build uses: what tells a changed source from an unchanged one, and what
// names derived fields, settings and the validators' cache by their content.
import { hash } from 'node:crypto';

/** What the build compares to know a text has not changed. */
export const hashText = (text: string) => hash('sha1', text, 'base64url');
