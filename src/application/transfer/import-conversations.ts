import { Conversation } from '../../domain/conversation.js';
import { FieldInvalidError } from '../../domain/errors.js';
import { Message } from '../../domain/message.js';
import { storableMetadata } from '../../domain/metadata.js';
import { storableText } from '../../domain/text.js';
import type { IdGenerator } from '../ports/id-generator.js';
import type { ImportedConversation, ImportOutcome } from '../ports/message-repository.js';
import type { UnitOfWork } from '../ports/unit-of-work.js';
import { isChatGptConversation, readChatGptConversation } from './chatgpt-format.js';
import { isClaudeConversation, readClaudeConversation } from './claude-format.js';
import { isServiceConversation, readServiceConversation } from './service-format.js';
import { ConversationUnreadableError, isObject, stringOrNull, type ImportFormat, type SourceConversation } from './source-conversation.js';

/** One conversation as the body gave it: a parsed value, or why its line could not be parsed. */
export type ImportItem = { value: unknown } | { unreadable: string };

export interface ImportReport {
  format: ImportFormat | null;
  conversations: { created: number; skipped: number };
  messages: { created: number; skipped: number };
  errors: { conversation: string | null; detail: string }[];
}

/** Errors reported one by one; beyond, they are counted in one last entry (the report stays small). */
const MAX_ERRORS = 1000;
/** Conversations (or messages) written per unit of work: what an import holds in memory besides the conversation being read. */
const BATCH_CONVERSATIONS = 20;
const BATCH_MESSAGES = 2000;

const FORMATS: { format: ImportFormat; is: (value: unknown) => boolean; read: (value: unknown) => SourceConversation }[] = [
  { format: 'ndjson', is: isServiceConversation, read: readServiceConversation },
  { format: 'chatgpt', is: isChatGptConversation, read: readChatGptConversation },
  { format: 'claude', is: isClaudeConversation, read: readClaudeConversation },
];

/**
 * POST /api/users/{user_id}/import: conversations read one at a time from a body in one of the
 * formats (told by the first conversation's shape), each written in one unit of work. A
 * conversation that cannot be read is reported and skipped; a body whose first conversation is
 * of no format is refused (FieldInvalidError on `body`) before anything is stored.
 */
export class ImportConversations {
  constructor(
    private readonly unitOfWork: UnitOfWork,
    private readonly ids: IdGenerator,
  ) {}

  async execute(input: { userId: string; items: AsyncIterable<ImportItem> }): Promise<ImportReport> {
    const report: ImportReport = { format: null, conversations: { created: 0, skipped: 0 }, messages: { created: 0, skipped: 0 }, errors: [] };
    const batch: Batch = { items: [], messages: 0, errors: 0 };
    const fail = (conversation: string | null, detail: string) => this.fail(report, batch, conversation, detail);
    let reader: (typeof FORMATS)[number] | undefined;
    let index = 0;
    try {
      for await (const item of input.items) {
        index++;
        if (!reader) {
          const first = 'value' in item ? item.value : undefined;
          reader = FORMATS.find((f) => f.is(first));
          if (!reader) throw new FieldInvalidError('body', `is not one of the import formats (this service's ndjson export, ChatGPT's or Claude's conversations.json)${'unreadable' in item ? `: ${item.unreadable}` : ''}`);
          report.format = reader.format;
        }
        if ('unreadable' in item) {
          fail(null, `conversation ${index}: ${item.unreadable}`);
          continue;
        }
        try {
          if (!reader.is(item.value)) throw new ConversationUnreadableError(sourceName(item.value), `conversation ${index}: is not a conversation of the ${reader.format} format`);
          await this.enqueue(input.userId, reader.format, reader.read(item.value), batch, report);
        } catch (error) {
          if (error instanceof ConversationUnreadableError) fail(error.conversation, error.message);
          else if (error instanceof FieldInvalidError) fail(sourceName(item.value), error.message);
          else throw error;
        }
      }
    } catch (error) {
      // A body that breaks off after conversations were stored: reported, what was read kept.
      if (!(error instanceof FieldInvalidError) || error.field !== 'body' || report.format === null || index === 0) throw error;
      fail(null, error.message);
    }
    await this.flush(batch, report);
    return report;
  }

  private fail(report: ImportReport, batch: Batch, conversation: string | null, detail: string): void {
    if (++batch.errors <= MAX_ERRORS) report.errors.push({ conversation, detail });
    else report.errors[MAX_ERRORS] = { conversation: null, detail: `${batch.errors - MAX_ERRORS} more conversation(s) could not be imported` };
  }

  /** Reads one conversation into the batch; the batch is written when full. */
  private async enqueue(userId: string, format: ImportFormat, source: SourceConversation, batch: Batch, report: ImportReport): Promise<void> {
    // A message's id in a file is taken as unique within its conversation only.
    const derive = (kind: string, id: string) => this.ids.derivedId(`${userId}\n${format}\n${source.id}${kind === 'message' ? `\n${id}` : ''}`);
    // This service's own export keeps its ids where they are free or already this user's.
    const first = build(userId, source, format === 'ndjson' ? (_kind, id) => id : derive);
    // Only the id is kept of the file's conversation: short-lived objects stay young (cheap to collect).
    batch.items.push({ name: source.id, first, derived: format === 'ndjson' ? () => build(userId, source, derive) : null, duplicates: source.duplicates });
    batch.messages += source.messages.length;
    if (batch.items.length >= BATCH_CONVERSATIONS || batch.messages >= BATCH_MESSAGES) await this.flush(batch, report);
  }

  /**
   * Writes the batch in one unit of work (one transaction: one commit for many conversations,
   * which is most of an import's time on a database that flushes each commit).
   */
  private async flush(batch: Batch, report: ImportReport): Promise<void> {
    const items = batch.items.splice(0);
    batch.messages = 0;
    if (items.length === 0) return;
    const outcomes = await this.unitOfWork.run(async (r) => {
      const done: (ImportOutcome | null)[] = [];
      for (const item of items) {
        let outcome = await r.messages.importConversation(item.first);
        if (item.derived && (outcome.outcome === 'foreign' || outcome.conflicts.length > 0)) outcome = await r.messages.importConversation(item.derived());
        done.push(outcome.outcome === 'foreign' || outcome.conflicts.length > 0 ? null : outcome);
      }
      return done;
    });
    outcomes.forEach((outcome, i) => {
      if (outcome === null) return this.fail(report, batch, items[i]!.name, 'its ids are taken by another conversation');
      report.conversations[outcome.outcome === 'created' ? 'created' : 'skipped']++;
      report.messages.created += outcome.created;
      report.messages.skipped += outcome.skipped + items[i]!.duplicates;
    });
  }
}

interface Batch {
  /** `duplicates`: messages of the file left out for an id given twice, counted as skipped. */
  items: { name: string; first: ImportedConversation; derived: (() => ImportedConversation) | null; duplicates: number }[];
  messages: number;
  /** Conversations reported so far. */
  errors: number;
}

function build(userId: string, source: SourceConversation, idOf: (kind: 'conversation' | 'message', id: string) => string): ImportedConversation {
  const conversation = Conversation.create({ conversationId: idOf('conversation', source.id), userId, createdAt: source.createdAt });
  const messages = source.messages.map((m) =>
    Message.create({
      messageId: idOf('message', m.id),
      conversationId: conversation.conversationId,
      userId,
      role: m.role,
      text: storableText(m.text),
      createdAt: m.createdAt,
      metadata: storableMetadata(m.metadata),
      replyTo: null,
      parentId: m.parentId === null ? null : idOf('message', m.parentId),
    }),
  );
  const last = messages.reduce((latest: Date, m) => (m.createdAt > latest ? m.createdAt : latest), source.createdAt);
  return {
    conversation,
    title: source.title === null ? null : storableText(source.title),
    titleSource: source.title === null ? null : source.titleSource,
    pinned: source.pinned,
    archived: source.archived,
    activeAt: source.activeAt !== null && source.activeAt > last ? source.activeAt : last,
    messages,
    headId: source.headId === null ? null : idOf('message', source.headId),
  };
}

/** How an error names a conversation it could not read: its id or title in the file, when it has one. */
function sourceName(value: unknown): string | null {
  if (!isObject(value)) return null;
  const inner = isObject(value.conversation) ? value.conversation : value;
  return stringOrNull(inner.conversation_id) ?? stringOrNull(inner.uuid) ?? stringOrNull(inner.id) ?? stringOrNull(inner.title) ?? stringOrNull(inner.name);
}
