import { AppError, ErrorCodes, type ErrorDetail } from '@social/errors';

export const mediaNotFound = () => new AppError(ErrorCodes.NOT_FOUND, 404, 'Media was not found in this workspace.');

export const invalidFileUrl = (reason: string) =>
  new AppError('INVALID_FILE_URL', 400, `fileUrl is not accepted: ${reason}.`, {
    details: [{ path: '/fileUrl', message: reason }],
  });

export const uploadForbidden = () =>
  new AppError(ErrorCodes.FORBIDDEN, 403, 'The upload address is invalid or has expired; create the media again for a new one.');

export const fileForbidden = () => new AppError(ErrorCodes.FORBIDDEN, 403, 'The file address is invalid or has expired.');

export const alreadyConfirmed = () =>
  new AppError('UPLOAD_ALREADY_CONFIRMED', 409, 'The upload was already confirmed; the address can no longer be used.');

export const notUploaded = () =>
  new AppError('UPLOAD_NOT_RECEIVED', 409, 'Nothing was uploaded yet: PUT the file to the uploadUrl before confirming.');

export const mediaInUse = (scheduled: number) =>
  new AppError('MEDIA_IN_USE', 409, `The media is used by ${scheduled} scheduled post(s); remove it from them or unschedule them first.`);

export const unsupportedUploadType = (got: string | undefined, accepted: readonly string[]) =>
  new AppError(
    ErrorCodes.UNSUPPORTED_MEDIA_TYPE,
    415,
    `Content-Type ${got ?? '(none)'} is not accepted; send one of ${accepted.join(', ')}.`,
  );

export const uploadTooLarge = (limit: string) =>
  new AppError(ErrorCodes.PAYLOAD_TOO_LARGE, 413, `The file is larger than the upload limit of ${limit}.`);

export const fileNotReady = () => new AppError(ErrorCodes.NOT_FOUND, 404, 'The file is not available (not uploaded yet or deleted).');

export const providerFailed = (message: string) => new AppError('IMAGE_PROVIDER_FAILED', 502, `The image provider failed: ${message}`);

export const badRequest = (details: ErrorDetail[], message?: string) =>
  new AppError(ErrorCodes.VALIDATION_FAILED, 400, message ?? 'The request is not valid.', { details });

export const uploadInterrupted = () =>
  new AppError('UPLOAD_INTERRUPTED', 400, 'The upload ended before the whole body arrived; send it again.');
