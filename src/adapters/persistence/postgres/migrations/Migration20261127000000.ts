import { Migration } from '@mikro-orm/migrations';
import { createSearchIndexes, TRIGRAMS_INDEX, WORDS_INDEX, type Run } from '../search-indexes.js';

/**
 * Search: the extensions pg_trgm and btree_gin (created when the database has them; else start-up
 * stops with an error naming the one missing) and the two GIN indexes of search-indexes.ts, the
 * words index stemming by SEARCH_LANGUAGE. Built concurrently, outside a transaction, so a
 * large table stays writable meanwhile; a build stopped half-way is redone at the next start.
 */
export class Migration20261127000000 extends Migration {
  /** The text-search configuration the words index stems by (see `searchMigration`). */
  protected searchLanguage = 'english';

  override isTransactional(): boolean {
    return false;
  }

  override async up(): Promise<void> {
    // MikroORM binds `?` placeholders.
    const run: Run = (statement, values = []) => this.execute(statement.replace(/\$\d+/gu, '?'), values) as Promise<Record<string, unknown>[]>;
    await createSearchIndexes(run, this.searchLanguage);
  }

  override async down(): Promise<void> {
    await this.execute(`drop index concurrently if exists "${WORDS_INDEX}"`);
    await this.execute(`drop index concurrently if exists "${TRIGRAMS_INDEX}"`);
  }
}

/** The migration for `language` (SEARCH_LANGUAGE). */
export function searchMigration(language: string): typeof Migration20261127000000 {
  return class extends Migration20261127000000 {
    protected override searchLanguage = language;
  };
}
