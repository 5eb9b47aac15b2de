import { createLogger, type Logger } from '@social/logger';

export const log: Logger = createLogger('publisher');
export const jobLog: Logger = createLogger('publisher:job');
