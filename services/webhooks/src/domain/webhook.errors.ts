import { AppError } from '@social/errors';

export const webhookNotFound = () => new AppError('WEBHOOK_NOT_FOUND', 404, 'The webhook endpoint was not found in this workspace.');
export const deliveryNotFound = () => new AppError('DELIVERY_NOT_FOUND', 404, 'The delivery was not found for this webhook endpoint.');
export const invalidWebhookUrl = (reason: string) =>
  new AppError('INVALID_WEBHOOK_URL', 400, `The webhook url ${reason}.`, { details: [{ path: '/url', message: reason }] });
export const endpointLimit = (max: number) =>
  new AppError('WEBHOOK_LIMIT_REACHED', 409, `A workspace can have at most ${max} webhook endpoints; delete one first.`);
export const deliveryPending = () =>
  new AppError('DELIVERY_PENDING', 409, 'The delivery is still being attempted; replay it once it is delivered or has failed.');
export const rotationConflict = () =>
  new AppError('SECRET_ROTATION_CONFLICT', 409, 'The secret was being rotated by other requests at the same time; try again.');
