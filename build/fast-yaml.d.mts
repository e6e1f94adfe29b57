export function hasAnchor(text: string): boolean;
export function withoutMark(text: string): string;
export function hashText(text: string): string;
export function loadYaml(text: string, filename?: string): unknown;
export const MAX_DEPTH: number;
/** A source file's text, without a byte-order mark; throws as readFileSync does where it cannot be read. */
export function readText(abs: string): string;
