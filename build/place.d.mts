import type { SentOp } from './writer.ts';
export function placeOp(op: SentOp, ring: Buffer): void;
export function makeDir(dir: string, created: string[]): void;
export function removeDirs(dirs: Iterable<string>): void;
export const UNCLAIMED: 0;
export const BY_WRITER: 1;
export const BY_BUILD: 2;
export const PLACED: 3;
