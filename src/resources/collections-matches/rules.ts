import type { CollectionCondition, CollectionRules } from '../catalog/schemas.ts';
import type { Product } from '../products/schemas.ts';

/**
 * Collection rules evaluated against a product (collection record and rules
 * are "not shown" in the API description; designed in catalog/schemas.ts).
 * Strings compare case-insensitively. `tag` is a list field: `eq` means the
 * product has the tag, `neq` that it has not, `in` that it has any of the
 * tags, `contains` that some tag contains the text.
 */
type Value = string | number | string[];

function fieldValues(product: Product, field: CollectionCondition['field']): (string | number)[] {
  switch (field) {
    case 'tag':
      return product.tags;
    case 'destination.country':
      return [product.destination.country];
    case 'destination.city':
      return [product.destination.city];
    default:
      return [product[field]];
  }
}

const norm = (v: string | number) => (typeof v === 'string' ? v.toLowerCase() : v);

function test(actual: string | number, operator: CollectionCondition['operator'], value: Value): boolean {
  const a = norm(actual);
  switch (operator) {
    case 'eq':
      return !Array.isArray(value) && a === norm(value);
    case 'in':
      return Array.isArray(value) && value.some((v) => norm(v) === a);
    case 'contains':
      return typeof a === 'string' && typeof value === 'string' && a.includes(value.toLowerCase());
    case 'gte':
      return typeof a === 'number' && typeof value === 'number' && a >= value;
    case 'lte':
      return typeof a === 'number' && typeof value === 'number' && a <= value;
    case 'neq':
      return true; // handled in conditionHolds
  }
}

export function conditionHolds(product: Product, condition: CollectionCondition): boolean {
  const values = fieldValues(product, condition.field);
  if (condition.operator === 'neq') return !values.some((v) => test(v, 'eq', condition.value));
  return values.some((v) => test(v, condition.operator, condition.value));
}

export function matchesRules(product: Product, rules: CollectionRules): boolean {
  return rules.match === 'all' ? rules.conditions.every((c) => conditionHolds(product, c)) : rules.conditions.some((c) => conditionHolds(product, c));
}
