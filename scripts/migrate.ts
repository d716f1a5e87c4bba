/**
 * `npm run migration:up`     applies pending migrations to DATABASE_URL (the service also
 *                            does this at start).
 * `npm run migration:create` writes a new migration: the difference between the entity
 *                            schemas (src/adapters/persistence/mikro-orm/schemas.ts) and the
 *                            database at DATABASE_URL. Add its class to migrations/index.ts.
 */
import { migrate, openDatabase } from '../src/adapters/persistence/mikro-orm/database.js';
import { describeDatabase } from '../src/bootstrap/database.js';

const [command] = process.argv.slice(2);
const url = process.env.DATABASE_URL;
if (!url || !['up', 'create'].includes(command ?? '')) {
  console.error('usage: DATABASE_URL=postgres://... npm run migration:up | migration:create');
  process.exit(2);
}
const orm = await openDatabase({ url, poolMax: 2, timeoutMs: 10_000 });
try {
  if (command === 'up') {
    const applied = await migrate(orm);
    console.log(`${describeDatabase(url)}: ${applied.length ? `applied ${applied.join(', ')}` : 'already up to date'}`);
  } else {
    await migrate(orm);
    const created = await orm.getMigrator().createMigration();
    if (!created.fileName) console.log('no schema changes: nothing to create');
    else console.log(`wrote ${created.fileName}; add its class to migrations/index.ts\n${created.diff.up.join('\n')}`);
  }
} finally {
  await orm.close(true);
}
