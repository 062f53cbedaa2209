/**
 * Test numbers and addresses with fixed outcomes, in the manner of telecom
 * sandboxes (docs/areas.md). Everything else is delivered.
 */
export type Outcome = 'delivered' | 'invalid' | 'undeliverable';

export const TEST_TARGETS: Readonly<Record<string, Exclude<Outcome, 'delivered'>>> = {
  '+15005550001': 'invalid',
  '+15005550009': 'undeliverable',
  'undeliverable@example.test': 'undeliverable',
};

export const outcomeFor = (target: string): Outcome => TEST_TARGETS[target] ?? 'delivered';
