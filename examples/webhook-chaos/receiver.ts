import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { BookingEvent, Shop } from './shops.ts';

/**
 * The HTTP side of a receiver: checks each request's signature with the Standard Webhooks
 * verifier (a duplicate is signed afresh, so it passes too), hands the event to the shop, and
 * answers 204. A request that fails the check is answered 400 and changes nothing.
 */
export async function startReceiver(shop: Shop): Promise<{ url: string; setSecret(secret: string): void; close(): Promise<void> }> {
  let verifier: Webhook | null = null;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk));
    req.on('end', () => {
      try {
        const event = verifier!.verify(body, req.headers as Record<string, string>) as BookingEvent;
        shop.handle(String(req.headers['webhook-id']), event);
        res.writeHead(204).end();
      } catch {
        res.writeHead(400).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
    setSecret: (secret) => (verifier = new Webhook(secret)),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
