import { Types } from 'mongoose';

/** Opaque, time-ordered string ids (ObjectId hex), so sorting by _id is creation order. */
export const newId = (): string => new Types.ObjectId().toHexString();
