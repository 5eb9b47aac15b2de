import { Router } from 'express';
import { asyncHandler, parsePage, validator, workspaceOf } from '@social/http';
import type { LabelRepository } from '../data/label.repository';
import { createLabelSchema } from '../domain/labels/label.rules';
import { createLabel, listLabels } from '../domain/labels/labels.use-cases';

const validateCreate = validator<{ name: string }>(createLabelSchema);

export function labelsRoutes(repo: LabelRepository): Router {
  const r = Router();
  // The spec writes GET /labels/ with a trailing slash; both spellings work.
  r.get(
    ['/labels', '/labels/'],
    asyncHandler(async (req, res) => {
      res.json(await listLabels(repo, workspaceOf(req), parsePage(req.query)));
    }),
  );
  r.post(
    ['/labels', '/labels/'],
    asyncHandler(async (req, res) => {
      const input = validateCreate(req.body);
      res.status(201).json(await createLabel(repo, workspaceOf(req), input));
    }),
  );
  return r;
}
