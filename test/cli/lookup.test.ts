import { describe, expect, it } from 'vitest';
import { orgKeyForms, pickKey, pickWorkspace } from '../../src/cli/lookup.ts';

/** What the CLI takes for a workspace and for a key (the journeys are in forgiving-cli.test.ts). */
const WORKSPACES = [
  { id: 'wksp_a1', name: 'Aurora Tours' },
  { id: 'wksp_b1', name: 'Borealis Adventures (sandbox)' },
  { id: 'wksp_b2', name: 'Borealis copy' },
];

describe('pickWorkspace', () => {
  it('takes an id, a full name in any case, or an unambiguous part of a name', () => {
    expect(pickWorkspace(WORKSPACES, 'wksp_b2').name).toBe('Borealis copy');
    expect(pickWorkspace(WORKSPACES, 'borealis COPY').id).toBe('wksp_b2');
    expect(pickWorkspace(WORKSPACES, 'aurora').id).toBe('wksp_a1');
    expect(pickWorkspace(WORKSPACES, 'adventures').id).toBe('wksp_b1');
  });

  it('an ambiguous part lists the candidates; an unknown one the known workspaces', () => {
    expect(() => pickWorkspace(WORKSPACES, 'Borealis')).toThrow(
      '--workspace "Borealis" matches 2 workspaces: Borealis Adventures (sandbox) (wksp_b1), Borealis copy (wksp_b2); give more of the name, or the id',
    );
    expect(() => pickWorkspace(WORKSPACES, 'nope')).toThrow(
      'no workspace "nope"; known: Aurora Tours (wksp_a1), Borealis Adventures (sandbox) (wksp_b1), Borealis copy (wksp_b2)',
    );
  });
});

describe('pickKey', () => {
  const keys = [
    { id: 'wkey_1', key: 'tcs_test_borealis_full_0001', keyPrefix: 'tcs_test_borealis_f' },
    { id: 'wkey_2', key: null, keyPrefix: 'tcs_test_borealis_p' },
    ...orgKeyForms({ id: 'orgkey_1', keyPrefix: 'ab12cd34' }),
  ];
  const pick = (given: string) => pickKey(keys, given, 'key', 'sandbox keys list').id;

  it('takes the id, the key itself, or the prefix a listing shows (with its ellipsis too)', () => {
    expect(pick('wkey_2')).toBe('wkey_2');
    expect(pick('tcs_test_borealis_full_0001')).toBe('wkey_1');
    expect(pick('tcs_test_borealis_p')).toBe('wkey_2');
    expect(pick('tcs_test_borealis_p…')).toBe('wkey_2');
    expect(pick('tcs_test_borealis_p...')).toBe('wkey_2');
    expect(pick('tcs_test_borealis_products_read_000000001')).toBe('wkey_2');
  });

  it('an organization key by its listed prefix, the org_ form, or the key itself', () => {
    expect(pick('ab12cd34')).toBe('orgkey_1');
    expect(pick('org_ab12cd34')).toBe('orgkey_1');
    expect(pick('org_ab12cd34_secretsecret')).toBe('orgkey_1');
  });

  it('the start of several prefixes is ambiguous; nothing matching says where the keys are', () => {
    expect(() => pick('tcs_test_borealis')).toThrow(
      '"tcs_test_borealis" begins 2 keys: tcs_test_borealis_f… (wkey_1), tcs_test_borealis_p… (wkey_2); give the id',
    );
    expect(() => pick('tcs_live_x')).toThrow('no key "tcs_live_x": give its id, its prefix or the key itself (`sandbox keys list` lists them)');
  });
});
