import { createLogger, type Logger } from '@social/logger';

export const log: Logger = createLogger('insights');
export const collectorLog: Logger = createLogger('insights:collector');
