export { createSocialClient, takesIdempotencyKey, type SocialClient, type SocialClientOptions } from './client';
export { retryingFetch, retryAfterMs, type RetryOptions } from './retry';
export { signWebhook, verifyWebhook, WebhookVerificationError, type WebhookHeaders } from './webhooks';
export type { paths, components, operations } from './schema.generated';
