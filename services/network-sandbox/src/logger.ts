import { createLogger, type Logger } from '@social/logger';

export const log: Logger = createLogger('network-sandbox');
