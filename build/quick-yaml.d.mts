/** A record in the plain block style, as js-yaml reads it; undefined for a document left to js-yaml. */
export function quickLoad(text: string): unknown;
