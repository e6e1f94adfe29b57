export const ANCHOR: RegExp;
export function withoutMark(text: string): string;
export function hashText(text: string): string;
export function loadYaml(text: string, filename?: string): unknown;
export const MAX_DEPTH: number;
