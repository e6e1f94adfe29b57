// Images and sounds an author gives in a record's own folder (`data/<kind>/<name>/`), published with
// the record at `media/<kind>/<id>/<file>`. Each file is hostile input: it is read only through the
// guard (a regular file inside the data folder, under the size limit), its name must be a slug with
// a known extension, and its bytes must be of the type its extension names, so that a record never
// publishes a file of the machine it was built on, a pipe it would wait on, or a page posing as an image.
import { hash } from 'node:crypto';
import { readInside } from '../guard.mjs';
import { MEDIA_FILE } from '../schemas/schemas.ts';
import { activeSvg } from './svg.ts';
import type { MediaFile } from '../store.ts';

/** The largest media file published: an image or a cry is well under it. */
export const MAX_MEDIA_BYTES = 2 * 1024 * 1024;

/** The content type of each extension a media file may have, as the local server and every host send it. */
export const MEDIA_TYPES: Record<string, string> = { png: 'image/png', svg: 'image/svg+xml', ogg: 'audio/ogg' };

const fileName = new RegExp(MEDIA_FILE);

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const OGG_SIGNATURE = Buffer.from('OggS', 'latin1');

/** Why the bytes are not of the type the file's extension names, or undefined when they are. */
export function wrongType(name: string, bytes: Buffer): string | undefined {
  const extension = name.slice(name.lastIndexOf('.') + 1);
  if (extension === 'png')
    return bytes.subarray(0, 8).equals(PNG_SIGNATURE) ? undefined : 'is not a PNG image (its bytes do not start as one does)';
  if (extension === 'ogg')
    return bytes.subarray(0, 4).equals(OGG_SIGNATURE) ? undefined : 'is not an OGG file (its bytes do not start as one does)';
  const text = bytes.toString('utf8');
  if (!Buffer.from(text, 'utf8').equals(bytes)) return 'is not an SVG image: it is not UTF-8 text';
  return activeSvg(text);
}

/** The bytes of a record's media file, checked; or why it is refused. */
export function readMedia(file: MediaFile): { bytes: Buffer } | { why: string } {
  if (!fileName.test(file.name)) return { why: 'is not named as a media file is: a lowercase slug ending in .png, .svg or .ogg' };
  const read = readInside(file.root, file.abs, MAX_MEDIA_BYTES);
  if ('why' in read) return read;
  const why = wrongType(file.name, read.bytes);
  return why ? { why } : read;
}

/**
 * What a record's folder holds, as one text for its source's hash: each file's name and the hash of
 * its bytes (or why it is refused), so that an image changed, added or removed changes the record.
 */
export function mediaDigest(media: readonly MediaFile[]): string {
  return media
    .map((file) => {
      const read = readMedia(file);
      return `${file.name}\t${'why' in read ? `refused: ${read.why}` : hash('sha1', read.bytes, 'base64url')}`;
    })
    .join('\n');
}
