import type { FilterQuery } from 'mongoose';
import type { ListFilter } from '../domain/ports';

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The workspace equality comes first so FerretDB narrows by it (and the index); the text and net
 * conditions then run on that workspace's few documents.
 */
export function listConditions<T extends { name: string; username: string; net: string }>(filter: ListFilter): FilterQuery<T> {
  const and: FilterQuery<T>[] = [];
  if (filter.nets && filter.nets.length > 0) and.push({ net: { $in: filter.nets } } as FilterQuery<T>);
  if (filter.query) {
    const re = { $regex: escapeRegex(filter.query), $options: 'i' };
    and.push({ $or: [{ name: re }, { username: re }] } as FilterQuery<T>);
  }
  return and.length > 0 ? ({ $and: and } as FilterQuery<T>) : {};
}
