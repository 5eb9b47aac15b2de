import { AppError, ErrorCodes } from '@social/errors';

export const INSIGHTS_NOT_SUPPORTED = 'INSIGHTS_NOT_SUPPORTED';

/** The network has no insights of this kind (microblogNet at all, listingNet and adNet per post). */
export const insightsNotSupported = (networkName: string, what: string) =>
  new AppError(INSIGHTS_NOT_SUPPORTED, 400, `${networkName} does not support ${what}.`, {
    details: [{ path: '', message: `${what} are not available on ${networkName}` }],
  });

export const profileNotFound = () => new AppError(ErrorCodes.NOT_FOUND, 404, 'Profile was not found in this workspace.');
export const competitorNotFound = () => new AppError(ErrorCodes.NOT_FOUND, 404, 'Competitor was not found in this workspace.');
