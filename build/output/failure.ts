// When the machine refuses the output (a full disk, a folder that may not be written, a read-only
// file system), the build ends with one message naming the path and the cause, in words, rather
// than a stack: the data is not at fault and the author should not have to read code to see it.

/** What each refusal means, in the words the message uses. */
const CAUSES: Record<string, string> = {
  ENOSPC: 'no space is left on the device',
  EDQUOT: 'the disk quota is used up',
  EACCES: 'permission denied',
  EPERM: 'the operation is not permitted',
  EROFS: 'the file system is read-only',
  EIO: 'an input/output error',
  EMFILE: 'too many files are open',
  ENAMETOOLONG: 'the path is too long',
  ENOENT: 'nothing can be made there',
  ENOTDIR: 'a part of the path is a file, not a folder',
  EISDIR: 'a folder stands where a file should be',
  ELOOP: 'the path has too many links (or a link loop)',
  EFBIG: 'the file is too large for the file system',
  // Not the system's: the build's own (trees.ts, `throughFolders`).
  ALTERED:
    "the build's own tree holds a link or a file there, where it keeps a folder: something else changed it, so it was removed, and the next build makes it again",
};

/** The output could not be written; `dist` is as it was. */
export class OutputFailed extends Error {
  constructor(
    readonly path: string,
    readonly code: string,
  ) {
    super(`could not write ${path}: ${CAUSES[code] ?? code} (${code})`);
  }
}

/** An error of the file system met while writing the output, as the one message to end with; any other error as it is. */
export function outputFailure(err: unknown): unknown {
  if (err instanceof OutputFailed) return err;
  const { code, path } = (err ?? {}) as NodeJS.ErrnoException;
  return code && code in CAUSES && path ? new OutputFailed(path, code) : err;
}

/** A failure the writer reported for `path` as a message (`ENOSPC: no space left on device, write`). */
export function placingFailed(path: string, message: string): Error {
  const code = /^([A-Z]+):/.exec(message)?.[1];
  return code && code in CAUSES ? new OutputFailed(path, code) : new Error(`could not write ${path}: ${message}`);
}
