import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';

const POSTGRES = resolve(dirname(fileURLToPath(import.meta.url)), '../../src/adapters/persistence/postgres');

/**
 * A transaction with a pending NOTIFY takes a database-wide lock at commit: no statement that
 * stores replies or messages may notify. News of replies is sent by the notifications adapter
 * alone, in statements of its own.
 */
describe('NOTIFY only outside the statements that store', () => {
  it('no PostgreSQL adapter but the notifications one calls pg_notify or NOTIFY', () => {
    const files = readdirSync(POSTGRES, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
    const notifying = files.filter((file) => /pg_notify|\bnotify\s+\w/i.test(readFileSync(join(POSTGRES, file), 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '')));
    expect(files.length).to.be.greaterThan(10);
    expect(notifying).to.deep.equal(['postgres-reply-notifications.ts']);
  });
});
