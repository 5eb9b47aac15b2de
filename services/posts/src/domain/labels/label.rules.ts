import { randomInt } from 'node:crypto';

export const LABEL_NAME_MIN = 1;
export const LABEL_NAME_MAX = 50;

export const createLabelSchema = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: LABEL_NAME_MIN, maxLength: LABEL_NAME_MAX },
  },
} as const;

/** A random #RRGGBB color (spec 2.4: assigned on creation). */
export const randomColor = (): string => `#${randomInt(0, 0x1000000).toString(16).padStart(6, '0').toUpperCase()}`;
