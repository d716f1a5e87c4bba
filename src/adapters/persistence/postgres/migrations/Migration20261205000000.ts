import { Migration } from '@mikro-orm/migrations';

/**
 * The trigger that counts a conversation's messages and moves its head (Migration20261126000000)
 * asks, for each new row, whether another message shares its parent: an `exists` that an index
 * scan of `messages_children` answers at its first entry. With some statistics (the table analyzed
 * while small), the planner chose a bitmap scan for it instead, which reads every matching entry
 * before answering: one statement inserting 100,000 messages into one conversation (all without a
 * parent yet, as a bulk insert makes them) then read 100,000 entries per row, and ran for minutes
 * where it takes 12 to 17 s. The trigger's statements now run without bitmap scans.
 */
export class Migration20261205000000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter function "count_conversation_messages"() set enable_bitmapscan = off`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter function "count_conversation_messages"() reset enable_bitmapscan`);
  }
}
