import { ASPECT_RATIOS, MAX_TARGET, QUALITIES } from '../domain/generation/image-sizes';

const name = { type: 'string', minLength: 1, maxLength: 255 };
const destinationType = { type: 'string', enum: ['POST_MEDIA', 'POST_LINK'] };

export const createMediaSchema = {
  type: 'object',
  required: ['name', 'destinationType'],
  additionalProperties: false,
  properties: {
    name,
    destinationType,
    width: { type: 'integer', minimum: 1, maximum: 100000 },
    height: { type: 'integer', minimum: 1, maximum: 100000 },
    // Bounded like every number of a request (a day of video; 1 TiB).
    duration: { type: ['number', 'null'], minimum: 0, maximum: 86400 },
    fileSize: { type: 'integer', minimum: 1, maximum: 1024 ** 4 },
  },
};

export const fromUrlSchema = {
  type: 'object',
  required: ['name', 'destinationType', 'fileUrl'],
  additionalProperties: false,
  properties: { name, destinationType, fileUrl: { type: 'string', minLength: 1, maxLength: 2048 } },
};

export const generateImageSchema = {
  type: 'object',
  required: ['prompt', 'aspectRatio'],
  additionalProperties: false,
  properties: {
    prompt: { type: 'string', minLength: 1, maxLength: 4000, pattern: '\\S' },
    aspectRatio: { type: 'string', enum: Object.keys(ASPECT_RATIOS) },
    quality: { type: 'string', enum: [...QUALITIES] },
    targetWidth: { type: 'integer', minimum: 1, maximum: MAX_TARGET },
    targetHeight: { type: 'integer', minimum: 1, maximum: MAX_TARGET },
  },
};
