import type { WebhookDispatcher } from './dispatcher.ts';

/**
 * The sandbox's webhook dispatcher (`ctx.webhooks`) as a background service
 * (src/services.ts, whose list checks its shape; typed by what it uses, so this
 * module imports nothing above it).
 */
export const webhookDispatcherService = {
  name: 'webhooks',
  start({ webhooks }: { webhooks: WebhookDispatcher }) {
    webhooks.start();
    return { stop: () => webhooks.stop(), afterReset: () => webhooks.afterReset() };
  },
};
