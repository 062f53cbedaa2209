import { afterEach, describe, expect, it } from 'vitest';
import { RESOURCES, samplesOf, subscriptionsOf } from '../../src/resources/index.ts';
import type { ResourceModule } from '../../src/resources/types.ts';
import { WEBHOOK_EVENT_TYPES } from '../../src/webhooks/catalogue.ts';
import { NO_SUBSCRIPTIONS } from '../../src/webhooks/subscriptions.ts';
import { testSandbox, type TestSandbox } from '../helpers/sandbox.ts';

/**
 * The webhook engine knows no area: each area declares the sample data
 * of its events in its folder, registered like its routes, and the webhooks area
 * gives the engine its subscriptions. These hold the registration, not the data.
 */
let t: TestSandbox | undefined;
afterEach(async () => {
  await t?.sandbox.stop();
  t = undefined;
});

const area = (name: string, extra: Partial<ResourceModule>): ResourceModule => ({ name, collections: [], routes: () => undefined, ...extra });

describe('areas register their webhook parts', () => {
  it('the standard areas sample every family of the catalogue, each family once', () => {
    const families = new Set(WEBHOOK_EVENT_TYPES.map((type) => type.split('.')[0]!));
    expect(Object.keys(samplesOf(RESOURCES)).sort()).toEqual([...families].sort());
  });

  it('two areas sampling one family is refused, naming the second', () => {
    const twice = [area('a', { sampleEvents: { booking: () => null } }), area('b', { sampleEvents: { booking: () => null } })];
    expect(() => samplesOf(twice)).toThrow('two areas sample the booking events; area b is the second');
  });

  it("the subscriptions are the webhooks area's; without it there are none, and two are refused", () => {
    const source = subscriptionsOf([], {} as never);
    expect(source).toBe(NO_SUBSCRIPTIONS);
    const both = [area('a', { webhookSubscriptions: () => NO_SUBSCRIPTIONS }), area('b', { webhookSubscriptions: () => NO_SUBSCRIPTIONS })];
    expect(() => subscriptionsOf(both, {} as never)).toThrow('two areas store webhook subscriptions: a, b');
  });

  it("POST /__sandbox/events without data takes an area's own samples", async () => {
    const resources = RESOURCES.map((m) =>
      m.name === 'gallery'
        ? ({ ...m, sampleEvents: { gallery: (_store, workspaceId, type) => ({ id: 'gal_toy', workspaceId, type }) } } satisfies ResourceModule)
        : m,
    );
    t = await testSandbox({}, resources);
    const res = await t.request('POST', '/__sandbox/events', { key: null, body: { workspaceId: t.liveWorkspaceId, type: 'gallery.file.deleted' } });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.event.data).toEqual({ id: 'gal_toy', workspaceId: t.liveWorkspaceId, type: 'gallery.file.deleted' });
  });
});
