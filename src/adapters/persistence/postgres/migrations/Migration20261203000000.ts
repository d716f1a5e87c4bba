import { Migration } from '@mikro-orm/migrations';

/**
 * A message's children by their parent alone (`messages_parent`), for the walks of a delete
 * (postgres-message-repository.ts): looked up by conversation as well, a child could be found
 * through `messages_chain` (every message of the conversation, filtered), which a planner that
 * believes the conversation small (one it has no statistics of yet) prefers, once per message
 * walked: the square of a deleted subtree's size (8 s for 4,000 messages). Message ids are unique,
 * and a parent is always in its child's conversation, so the parent's id alone finds them. Built
 * without locking the table's writes (not in a transaction).
 */
export class Migration20261203000000 extends Migration {
  override isTransactional(): boolean {
    return false;
  }

  override async up(): Promise<void> {
    await this.execute(`create index concurrently if not exists "messages_parent" on "messages" ("parent_id") where "parent_id" is not null`);
  }

  override async down(): Promise<void> {
    await this.execute(`drop index concurrently if exists "messages_parent"`);
  }
}
