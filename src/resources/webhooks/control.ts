import type { RouteRegistrar } from '../types.ts';
import { registerDeliveryControl } from './control-deliveries.ts';
import { registerEventControl } from './control-events.ts';

/** The webhooks area's part of the control plane: deliveries and events (loaded with the control plane). */
export const registerWebhookControl: RouteRegistrar = (app, ctx) => {
  registerDeliveryControl(app, ctx);
  registerEventControl(app, ctx);
};
