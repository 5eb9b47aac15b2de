import type { DirectTransfer, FileStore } from '../domain/ports';

// The ports are the domain's (domain/ports.ts); the stores in this folder implement them.
export type { DirectTransfer, FileStore, NewFile, StoredFile } from '../domain/ports';

export const hasDirectTransfer = (store: FileStore): store is FileStore & DirectTransfer =>
  typeof (store as Partial<DirectTransfer>).presignPut === 'function';
