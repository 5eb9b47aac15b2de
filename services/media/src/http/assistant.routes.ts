import { Router } from 'express';
import { asyncHandler, validator, workspaceOf } from '@social/http';
import { generateImage, type GenerateImageInput, type GenerationDeps } from '../domain/generation/generate-image.use-case';
import { generateImageSchema } from './media.schemas';

const validateGenerate = validator<GenerateImageInput>(generateImageSchema);

export function assistantRoutes(deps: GenerationDeps): Router {
  const r = Router();
  r.post('/assistant/generate-image', asyncHandler(async (req, res) => {
    res.status(201).json(await generateImage(deps, workspaceOf(req), validateGenerate(req.body)));
  }));
  return r;
}
