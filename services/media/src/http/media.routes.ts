import { Router } from 'express';
import { asyncHandler, validator, workspaceOf } from '@social/http';
import { badRequest } from '../domain/media.errors';
import type { CreateUploadInput, ImportInput, MediaUseCases } from '../domain/media.use-cases';
import { createMediaSchema, fromUrlSchema } from './media.schemas';

const validateCreate = validator<CreateUploadInput>(createMediaSchema);
const validateImport = validator<ImportInput>(fromUrlSchema);

export function mediaRoutes(media: MediaUseCases, maxUploadBytes: number): Router {
  const r = Router();
  r.post(
    '/media',
    asyncHandler(async (req, res) => {
      const input = validateCreate(req.body);
      if (input.fileSize !== undefined && input.fileSize > maxUploadBytes) {
        throw badRequest([{ path: '/fileSize', message: `must be at most ${maxUploadBytes} (the upload limit)` }]);
      }
      res.status(201).json(await media.createUpload(workspaceOf(req), input));
    }),
  );
  r.post(
    '/media/from-url',
    asyncHandler(async (req, res) => {
      res.status(201).json(await media.importFromUrl(workspaceOf(req), validateImport(req.body)));
    }),
  );
  r.get(
    '/media/:mediaId',
    asyncHandler(async (req, res) => {
      res.json(await media.get(workspaceOf(req), req.params['mediaId']!));
    }),
  );
  r.patch(
    '/media/:mediaId',
    asyncHandler(async (req, res) => {
      res.json(await media.confirmUpload(workspaceOf(req), req.params['mediaId']!));
    }),
  );
  r.delete(
    '/media/:mediaId',
    asyncHandler(async (req, res) => {
      await media.delete(workspaceOf(req), req.params['mediaId']!);
      res.json({ success: true });
    }),
  );
  return r;
}
