/**
 * `npm run migration:up`     applies pending migrations to DATABASE_URL (the service also
 *                            does this at start).
 * `npm run migration:create` writes an empty migration to fill in with SQL (the migrations
 *                            are the one description of the tables). Add its class to
 *                            migrations/index.ts.
 */
import { migrate, openMigrator } from '../src/adapters/persistence/postgres/database.js';
import { describeDatabase } from '../src/bootstrap/database.js';

const [command] = process.argv.slice(2);
const url = process.env.DATABASE_URL;
if (!url || !['up', 'create'].includes(command ?? '')) {
  console.error('usage: DATABASE_URL=postgres://... npm run migration:up | migration:create');
  process.exit(2);
}
if (command === 'up') {
  const applied = await migrate({ url, timeoutMs: 10_000 });
  console.log(`${describeDatabase(url)}: ${applied.length ? `applied ${applied.join(', ')}` : 'already up to date'}`);
} else {
  const orm = await openMigrator({ url, timeoutMs: 10_000 });
  try {
    const created = await orm.getMigrator().createMigration(undefined, true);
    console.log(`wrote ${created.fileName}: write its SQL, then add its class to migrations/index.ts`);
  } finally {
    await orm.close(true);
  }
}
