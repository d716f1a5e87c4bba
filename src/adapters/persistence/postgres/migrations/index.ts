import { Migration20261122000000 } from './Migration20261122000000.js';
import { Migration20261123000000 } from './Migration20261123000000.js';
import { Migration20261125000000 } from './Migration20261125000000.js';
import { Migration20261126000000 } from './Migration20261126000000.js';
import { Migration20261128000000 } from './Migration20261128000000.js';
import { Migration20261129000000 } from './Migration20261129000000.js';
import { Migration20261130000000 } from './Migration20261130000000.js';
import { Migration20261201000000 } from './Migration20261201000000.js';
import { Migration20261202000000 } from './Migration20261202000000.js';
import { Migration20261203000000 } from './Migration20261203000000.js';
import { Migration20261204000000 } from './Migration20261204000000.js';
import { Migration20261205000000 } from './Migration20261205000000.js';
import { searchMigration } from './Migration20261127000000.js';

/** What some migrations are made for: the text-search configuration of the search index (SEARCH_LANGUAGE). */
export interface MigrationSettings {
  searchLanguage: string;
}

/**
 * Every migration, in order: the one description of the tables (the repositories' SQL and
 * rows.ts follow them). Listed here rather than found by globbing files, so the same list works
 * under tsx and from compiled output. `npm run migration:create` writes an empty migration
 * to fill in; add its class to this list.
 */
export const migrationsFor = (settings: MigrationSettings) => [
  { name: 'Migration20261122000000', class: Migration20261122000000 },
  { name: 'Migration20261123000000', class: Migration20261123000000 },
  { name: 'Migration20261125000000', class: Migration20261125000000 },
  { name: 'Migration20261126000000', class: Migration20261126000000 },
  { name: 'Migration20261127000000', class: searchMigration(settings.searchLanguage) },
  { name: 'Migration20261128000000', class: Migration20261128000000 },
  { name: 'Migration20261129000000', class: Migration20261129000000 },
  { name: 'Migration20261130000000', class: Migration20261130000000 },
  { name: 'Migration20261201000000', class: Migration20261201000000 },
  { name: 'Migration20261202000000', class: Migration20261202000000 },
  { name: 'Migration20261203000000', class: Migration20261203000000 },
  { name: 'Migration20261204000000', class: Migration20261204000000 },
  { name: 'Migration20261205000000', class: Migration20261205000000 },
];
