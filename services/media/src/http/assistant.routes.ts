import { Router } from 'express';
import { asyncHandler, validator, workspaceOf } from '@social/http';
import type { GenerateImage, GenerateImageInput } from '../domain/generation/generate-image.use-case';
import { badRequest } from '../domain/media.errors';
import { generateImageSchema } from './media.schemas';

const validateGenerate = validator<GenerateImageInput>(generateImageSchema);

export function assistantRoutes(generateImage: GenerateImage): Router {
  const r = Router();
  r.post(
    '/assistant/generate-image',
    asyncHandler(async (req, res) => {
      const input = validateGenerate(req.body);
      // Together or not at all: one side alone cannot override a ratio's size.
      if ((input.targetWidth === undefined) !== (input.targetHeight === undefined)) {
        const missing = input.targetWidth === undefined ? 'targetWidth' : 'targetHeight';
        throw badRequest([{ path: `/${missing}`, message: 'is required when the other target dimension is given' }]);
      }
      res.status(201).json(await generateImage.execute(workspaceOf(req), input));
    }),
  );
  return r;
}
