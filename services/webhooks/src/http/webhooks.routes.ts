import { Router } from 'express';
import { asyncHandler, parsePage, validator, workspaceOf } from '@social/http';
import {
  createEndpointSchema,
  rotateSecretSchema,
  type CreateEndpointInput,
  type EndpointsUseCases,
  type RotateSecretInput,
} from '../domain/endpoints.use-cases';

const validateCreate = validator<CreateEndpointInput>(createEndpointSchema);
const validateRotate = validator<RotateSecretInput>(rotateSecretSchema);

export function webhooksRoutes(uc: EndpointsUseCases): Router {
  const r = Router();
  r.post(
    '/webhooks',
    asyncHandler(async (req, res) => {
      res.status(201).json(await uc.create(workspaceOf(req), validateCreate(req.body)));
    }),
  );
  r.get(
    '/webhooks',
    asyncHandler(async (req, res) => {
      res.json(await uc.list(workspaceOf(req), parsePage(req.query)));
    }),
  );
  r.get(
    '/webhooks/:id',
    asyncHandler(async (req, res) => {
      res.json(await uc.get(workspaceOf(req), req.params['id']!));
    }),
  );
  r.delete(
    '/webhooks/:id',
    asyncHandler(async (req, res) => {
      res.json(await uc.delete(workspaceOf(req), req.params['id']!));
    }),
  );
  r.post(
    '/webhooks/:id/rotate-secret',
    asyncHandler(async (req, res) => {
      // The body is optional: no body rotates with the configured grace period.
      res.json(await uc.rotateSecret(workspaceOf(req), req.params['id']!, validateRotate(req.body ?? {})));
    }),
  );
  r.get(
    '/webhooks/:id/deliveries',
    asyncHandler(async (req, res) => {
      res.json(await uc.deliveries(workspaceOf(req), req.params['id']!, parsePage(req.query)));
    }),
  );
  r.post(
    '/webhooks/:id/deliveries/:deliveryId/replay',
    asyncHandler(async (req, res) => {
      res.status(202).json(await uc.replay(workspaceOf(req), req.params['id']!, req.params['deliveryId']!));
    }),
  );
  return r;
}
