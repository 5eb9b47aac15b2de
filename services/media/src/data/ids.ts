import { Types } from 'mongoose';

/** Opaque, time-ordered string ids (ObjectId hex). */
export const newId = (): string => new Types.ObjectId().toHexString();
