/**
 * A new API key for AUTH_API_KEYS_FILE: prints the key (give it to the caller; it is shown once)
 * and the entry to add to the file (only its hash).
 *
 *   npx tsx scripts/api-key.ts reporting-service [name]   # a key that acts as that user
 *   npx tsx scripts/api-key.ts --any-user [name]          # a key that may act for any user
 */
import { createHash, randomBytes } from 'node:crypto';

const [who, name] = process.argv.slice(2);
if (!who) {
  process.stderr.write('usage: npx tsx scripts/api-key.ts <user_id> | --any-user [name]\n');
  process.exit(2);
}
const key = randomBytes(32).toString('base64url');
const entry = {
  ...(name ? { name } : {}),
  hash: `sha256:${createHash('sha256').update(key).digest('hex')}`,
  ...(who === '--any-user' ? { any_user: true } : { user_id: who }),
};
process.stdout.write(`key (give it to the caller; it is not stored anywhere): ${key}\n`);
process.stdout.write(`entry for the "keys" list of AUTH_API_KEYS_FILE:\n${JSON.stringify(entry, null, 2)}\n`);
