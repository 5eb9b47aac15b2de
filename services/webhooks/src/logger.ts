import { createLogger, type Logger } from '@social/logger';

export const log: Logger = createLogger('webhooks');
export const deliveryLog: Logger = createLogger('webhooks:delivery');
