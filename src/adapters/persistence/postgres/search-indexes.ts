/**
 * The search indexes, made by migration Migration20261127000000 and kept in step with
 * SEARCH_LANGUAGE at every start (a changed language rebuilds the words index).
 *
 * - `messages_search_words`: GIN on (user_id, to_tsvector(language, text)); the user is a key of
 *   the index itself (btree_gin), so a search reads only the caller's entries, however many
 *   messages other users have.
 * - `messages_search_trigrams`: GIN on (user_id, text gin_trgm_ops) (pg_trgm): substrings
 *   (ILIKE), unspaced scripts such as Chinese, misspellings (`<%`, word similarity).
 *
 * Both hold finished messages only (`where status = 'completed'`, the search's own condition):
 * a reply being written is rewritten at every progress write, and each rewrite of an indexed
 * row adds all its text's keys again; it is indexed once, when it finishes.
 *
 * Both are built with `create index concurrently`, so writes go on while a large table is indexed.
 */

/** The PostgreSQL extensions search needs (both ship with PostgreSQL, in its contrib package, and are trusted). */
export const SEARCH_EXTENSIONS = ['pg_trgm', 'btree_gin'] as const;

export const WORDS_INDEX = 'messages_search_words';
export const TRIGRAMS_INDEX = 'messages_search_trigrams';

/** An extension search needs cannot be created in the database. */
export class SearchExtensionMissingError extends Error {
  override readonly name = 'SearchExtensionMissingError';
  constructor(
    readonly extension: string,
    reason: string,
  ) {
    super(
      `search needs the PostgreSQL extension ${extension}, which cannot be created in this database (${reason}). ` +
        `Install PostgreSQL's contrib package (e.g. postgresql-contrib) on the database server, or have a superuser run ` +
        `"create extension ${extension};" in this database, then start again`,
    );
  }
}

/** SEARCH_LANGUAGE names no text-search configuration of the database. */
export class SearchLanguageUnknownError extends Error {
  override readonly name = 'SearchLanguageUnknownError';
}

/** Runs one statement outside a transaction; resolves to its rows. */
export type Run = (statement: string, values?: unknown[]) => Promise<Record<string, unknown>[]>;

/** A configuration name, checked before it is written into SQL (it must be a constant of the index expression). */
export function assertConfigName(language: string): string {
  if (!/^[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)?$/u.test(language)) throw new SearchLanguageUnknownError(`SEARCH_LANGUAGE ${JSON.stringify(language)} is not a text-search configuration name`);
  return language;
}

/** Which messages the indexes hold: the finished ones, which search alone reads. */
const INDEXED = `where "status" = 'completed'`;
/** The same condition as pg_get_indexdef prints it, at the end of an index's definition. */
const INDEXED_AS_PRINTED = /WHERE \(status = 'completed'::text\)$/u;

const wordsIndexSql = (name: string, language: string) =>
  `create index concurrently if not exists "${name}" on "messages" using gin ("user_id", to_tsvector('${assertConfigName(language)}'::regconfig, "text")) ${INDEXED}`;
const trigramsIndexSql = (name: string) => `create index concurrently if not exists "${name}" on "messages" using gin ("user_id", "text" gin_trgm_ops) ${INDEXED}`;

export async function createSearchExtensions(run: Run): Promise<void> {
  for (const extension of SEARCH_EXTENSIONS) {
    try {
      await run(`create extension if not exists ${extension}`);
    } catch (error) {
      // The migrator's driver puts the statement before PostgreSQL's own message.
      const reason = (error instanceof Error ? error.message : String(error)).replace(/^create extension .*? - /u, '').replace(/\s*\n\s*-?\s*/gu, '; ');
      throw new SearchExtensionMissingError(extension, reason);
    }
  }
}

/** Makes both indexes (a half-built one, left by a stopped build, is dropped and made again). */
export async function createSearchIndexes(run: Run, language: string): Promise<void> {
  await createSearchExtensions(run);
  await dropInvalid(run, WORDS_INDEX);
  await run(wordsIndexSql(WORDS_INDEX, language));
  await dropInvalid(run, TRIGRAMS_INDEX);
  await run(trigramsIndexSql(TRIGRAMS_INDEX));
}

/** Fails clearly when `language` is no configuration of the database. */
export async function checkSearchLanguage(run: Run, language: string): Promise<void> {
  assertConfigName(language);
  const [schema, name] = language.includes('.') ? language.split('.') : [null, language];
  const [row] = await run(
    `select exists (select 1 from pg_ts_config c join pg_namespace n on n.oid = c.cfgnamespace
       where c.cfgname = $2 and (n.nspname = $1 or ($1 is null and pg_ts_config_is_visible(c.oid)))) as known,
     (select string_agg(cfgname, ', ' order by cfgname) from pg_ts_config) as names`,
    [schema, name],
  );
  if (!row?.known) {
    throw new SearchLanguageUnknownError(`SEARCH_LANGUAGE ${JSON.stringify(language)} is not a text-search configuration of this database (it has: ${String(row?.names)})`);
  }
}

/**
 * After the migrations: each index as search-indexes.ts makes it today. One built otherwise — the
 * words index for another language (SEARCH_LANGUAGE changed), or either one by an earlier version
 * holding every message, replies being written included — is rebuilt beside the old one, which is
 * then dropped; returns whether any was.
 */
export async function keepSearchIndexesInStep(run: Run, language: string, note?: (message: string) => void): Promise<boolean> {
  const wanted = [
    { index: WORDS_INDEX, make: (name: string) => wordsIndexSql(name, language), stems: true },
    { index: TRIGRAMS_INDEX, make: trigramsIndexSql, stems: false },
  ];
  let rebuilt = false;
  for (const { index, make, stems } of wanted) {
    const row = await indexNamed(run, index);
    if (row === undefined) continue; // not migrated yet: the migration makes it
    const definition = row.definition;
    const reason =
      !row.valid ? 'as it was left half-built'
      : !INDEXED_AS_PRINTED.test(definition) ? 'to hold finished messages only (an earlier version indexed replies being written too)'
      : stems && !definition.includes(`'${language}'::regconfig`) ? `to stem by SEARCH_LANGUAGE=${language} (it was built for another language)`
      : null;
    if (reason === null) continue;
    note?.(`rebuilding the search index ${index} ${reason}; on a large table this takes a while`);
    const replacement = `${index}_next`;
    await run(`drop index concurrently if exists "${replacement}"`);
    await run(make(replacement));
    await run(`drop index concurrently if exists "${index}"`);
    await run(`alter index "${replacement}" rename to "${index}"`);
    rebuilt = true;
  }
  return rebuilt;
}

/** The index of that name as pg prints it, and whether it is valid (a build stopped half-way leaves it invalid); undefined when there is none. */
async function indexNamed(run: Run, index: string): Promise<{ definition: string; valid: boolean } | undefined> {
  const [row] = await run(`select pg_get_indexdef(i.indexrelid) as definition, i.indisvalid as valid
    from pg_index i join pg_class c on c.oid = i.indexrelid where c.relname = $1`, [index]);
  return row === undefined ? undefined : { definition: String(row.definition), valid: row.valid === true };
}

async function dropInvalid(run: Run, index: string): Promise<void> {
  const row = await indexNamed(run, index);
  if (row !== undefined && !row.valid) await run(`drop index concurrently if exists "${index}"`);
}
