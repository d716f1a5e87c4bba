import type { ConversationDeletion, ResponseEnding, ResponseRecord, ResponseRepository, StringMetadata } from '../../../application/ports/response-repository.js';
import { toConversation, type ConversationRow } from './rows.js';
import { sql, type Statements } from './statements.js';

interface ResponseRow {
  response_id: string;
  model: string;
  instructions: string | null;
  previous_response_id: string | null;
  background: boolean;
  metadata: StringMetadata;
  input_ids: string[];
  max_output_tokens: number | null;
  temperature: number | null;
  input_tokens: number;
}

const toRecord = (row: ResponseRow): ResponseRecord => ({
  responseId: row.response_id,
  model: row.model,
  instructions: row.instructions,
  previousResponseId: row.previous_response_id,
  background: row.background,
  metadata: row.metadata,
  inputIds: row.input_ids,
  maxOutputTokens: row.max_output_tokens,
  temperature: row.temperature,
  inputTokens: row.input_tokens,
});

interface EndingRow {
  response_id: string;
  conversation_id: string;
  user_id: string;
  reply_to: string | null;
  created_at: Date;
  finish_reason: string;
  metadata: Record<string, unknown>;
  /** The `responses` row as it was (to_jsonb); null for a native reply. */
  record: ResponseRow | null;
}

/**
 * The OpenAI face's records in PostgreSQL (Migration20261128000000), one statement each. A
 * response's row references its reply and a conversation's metadata its conversation, both with
 * cascades, so deleting a reply or a conversation, by any path, takes them along. A response's
 * ending (Migration20261201000000, written by the statements that remove an empty reply)
 * references its conversation the same way.
 */
export class PostgresResponseRepository implements ResponseRepository {
  constructor(private readonly db: Statements) {}

  async save(record: ResponseRecord): Promise<void> {
    const { responseId: id } = record;
    await this.db.changed(
      sql`/* responses.save */ insert into responses (response_id, model, instructions, previous_response_id, background, metadata,
         input_ids, max_output_tokens, temperature, input_tokens)
       select message_id, ${record.model}, ${record.instructions}, ${record.previousResponseId}, ${record.background},
         ${JSON.stringify(record.metadata)}::jsonb, ${record.inputIds}::text[], ${record.maxOutputTokens}::integer,
         ${record.temperature}::double precision, ${record.inputTokens}::integer
       from messages where message_id = ${id}
       on conflict (response_id) do update set model = excluded.model, instructions = excluded.instructions,
         previous_response_id = excluded.previous_response_id, background = excluded.background, metadata = excluded.metadata,
         input_ids = excluded.input_ids, max_output_tokens = excluded.max_output_tokens, temperature = excluded.temperature,
         input_tokens = excluded.input_tokens`,
    );
  }

  async findById(responseId: string): Promise<ResponseRecord | null> {
    const [row] = await this.db.rows<ResponseRow>(sql`/* responses.find */ select * from responses where response_id = ${responseId}`);
    return row ? toRecord(row) : null;
  }

  async findEnding(responseId: string): Promise<ResponseEnding | null> {
    const [row] = await this.db.rows<EndingRow>(sql`/* responses.find_ending */ select * from response_endings where response_id = ${responseId}`);
    if (!row) return null;
    const { response_id: id, conversation_id: conversationId, user_id: userId, reply_to: replyTo, created_at: createdAt, finish_reason: finishReason, metadata, record } = row;
    return { responseId: id, conversationId, userId, replyTo, createdAt, finishReason, metadata, record: record ? toRecord(record) : null };
  }

  async deleteEnding(responseId: string, userId: string): Promise<boolean> {
    return (await this.db.changed(sql`/* responses.delete_ending */ delete from response_endings where response_id = ${responseId} and user_id = ${userId}`)) > 0;
  }

  async conversationMetadata(conversationId: string): Promise<StringMetadata | null> {
    const [row] = await this.db.rows<{ metadata: StringMetadata }>(
      sql`/* responses.conversation_metadata */ select metadata from conversation_metadata where conversation_id = ${conversationId}`,
    );
    return row ? row.metadata : null;
  }

  async saveConversationMetadata(conversationId: string, metadata: StringMetadata): Promise<void> {
    await this.db.changed(
      sql`/* responses.save_conversation_metadata */ insert into conversation_metadata (conversation_id, metadata)
       select conversation_id, ${JSON.stringify(metadata)}::jsonb from conversations where conversation_id = ${conversationId}
       on conflict (conversation_id) do update set metadata = excluded.metadata`,
    );
  }

  async deleteConversation(conversationId: string, userId: string): Promise<ConversationDeletion> {
    // The conversation's row is deleted first, and its messages, sessions and records with it (cascades).
    // Its messages are counted by the row's message_count (kept by the statement triggers): counting
    // them read every message of the conversation once more besides the delete's own reading.
    const [row] = await this.db.rows<{ conversation: ConversationRow | null; messages: string; sessions: string; deleted: boolean }>(
      sql`/* responses.delete_conversation */ with target as (select * from conversations where conversation_id = ${conversationId}),
       deleted as (delete from conversations where conversation_id = ${conversationId} and user_id = ${userId} returning 1)
       select (select row_to_json(t) from target t) as conversation,
              exists (select 1 from deleted) as deleted,
              coalesce((select message_count from target), 0) as messages,
              (select count(*) from sessions where conversation_id = ${conversationId}) as sessions`,
    );
    const conversation = row!.conversation ? toConversation(row!.conversation) : null;
    return row!.deleted ? { conversation, messages: Number(row!.messages), sessions: Number(row!.sessions) } : { conversation, messages: 0, sessions: 0 };
  }
}
