/**
 * Stored-file ids are ObjectId hex strings (data/ids.ts), and only those are accepted as keys: a
 * key becomes a file name or an object key, so anything else (`..`, `/`, NUL, a drive letter) is
 * refused before it is ever joined to a path.
 */
const KEY = /^[0-9a-f]{24}$/;

export class InvalidFileKeyError extends Error {
  constructor(key: string) {
    super(`not a stored-file id: ${JSON.stringify(key.slice(0, 40))}`);
    this.name = 'InvalidFileKeyError';
  }
}

export function checkFileKey(key: string): string {
  if (typeof key !== 'string' || !KEY.test(key)) throw new InvalidFileKeyError(String(key));
  return key;
}

export const isFileKey = (key: string): boolean => typeof key === 'string' && KEY.test(key);

/** A read of a file that is not there (the GridFS store's message says FileNotFound, too). */
export const fileNotFound = (id: string) => Object.assign(new Error(`FileNotFound: file ${id} was not found`), { code: 'ENOENT' });
