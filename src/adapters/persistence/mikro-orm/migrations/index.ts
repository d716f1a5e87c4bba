import { Migration20261122000000 } from './Migration20261122000000.js';

/**
 * Every migration, in order. Listed here rather than found by globbing files, so the same
 * list works under tsx and from compiled output. `npm run migration:create` writes a new
 * file; add its class to this list.
 */
export const MIGRATIONS = [{ name: 'Migration20261122000000', class: Migration20261122000000 }];
