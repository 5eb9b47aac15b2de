import { Router } from 'express';
import { asyncHandler, parsePage, validator, workspaceOf } from '@social/http';
import { createLabelSchema } from '../domain/labels/label.rules';
import type { LabelsUseCases } from '../domain/labels/labels.use-cases';

const validateCreate = validator<{ name: string }>(createLabelSchema);

export function labelsRoutes(labels: LabelsUseCases): Router {
  const r = Router();
  // The spec writes GET /labels/ with a trailing slash; both spellings work.
  r.get(
    ['/labels', '/labels/'],
    asyncHandler(async (req, res) => {
      res.json(await labels.list(workspaceOf(req), parsePage(req.query)));
    }),
  );
  r.post(
    ['/labels', '/labels/'],
    asyncHandler(async (req, res) => {
      const input = validateCreate(req.body);
      res.status(201).json(await labels.create(workspaceOf(req), input));
    }),
  );
  return r;
}
