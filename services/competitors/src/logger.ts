import { createLogger, type Logger } from '@social/logger';

export const log: Logger = createLogger('competitors');
export const outboxLog: Logger = createLogger('competitors:outbox');
