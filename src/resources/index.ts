import { formsResource } from './forms/index.ts';
import { productsResource } from './products/index.ts';
import type { ResourceModule } from './types.ts';

/**
 * Every area of the API, in one explicit list (no directory magic): a reader
 * sees the whole surface here. Each module registers its routes under /v1.
 */
export const RESOURCES: readonly ResourceModule[] = [productsResource, formsResource];
