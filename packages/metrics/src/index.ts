export { counter, gauge, histogram, metricsRegistry, metricsText, type MetricSpec } from './registry';
export {
  domainEventsDropped,
  mongoCommands,
  grpcServerHandling,
  httpRequestDuration,
  mediaProcessingDuration,
  publishOutcomes,
  sandboxPostsStored,
  queueMessagesConsumed,
  queueMessagesPublished,
  type ConsumeOutcome,
  type PublishConfirm,
} from './series';
