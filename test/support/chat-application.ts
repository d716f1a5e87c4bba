import { ConversationTitles, type TitleMode } from '../../src/application/conversations/conversation-titles.js';
import type { ChatModel } from '../../src/application/ports/chat-model.js';
import type { Clock } from '../../src/application/ports/clock.js';
import type { IdGenerator } from '../../src/application/ports/id-generator.js';
import { StartTurn } from '../../src/application/replies/start-turn.js';
import { ReplyFeed } from '../../src/application/replies/reply-feed.js';
import type { ReplySettings } from '../../src/application/replies/reply-job.js';
import { ReplyJobs } from '../../src/application/replies/reply-jobs.js';
import type { ChatLimits } from '../../src/application/chat-limits.js';
import { SendChatMessage } from '../../src/application/replies/send-chat-message.js';
import { StreamChatReply } from '../../src/application/replies/stream-chat-reply.js';
import { BatchedStoredReplies } from '../../src/adapters/persistence/batched-stored-replies.js';
import { InMemoryUnitOfWork } from '../../src/adapters/persistence/memory/in-memory-unit-of-work.js';
import { JsonFilePersonaSource } from '../../src/adapters/persona/json-file-persona-source.js';
import { SystemClock } from '../../src/adapters/system/system-clock.js';
import { UuidV7IdGenerator } from '../../src/adapters/system/uuid-v7-id-generator.js';

export interface ChatApplicationOptions {
  unitOfWork?: InMemoryUnitOfWork;
  clock?: Clock;
  ids?: IdGenerator;
  chat?: ChatLimits;
  replies?: Partial<ReplySettings>;
  /** How conversations are named (first_message unless given). */
  titles?: TitleMode;
}

/** The chat use cases wired by hand over the in-memory store, as the composition root wires them. */
export function chatApplication(model: ChatModel, options: ChatApplicationOptions = {}) {
  const unitOfWork = options.unitOfWork ?? new InMemoryUnitOfWork();
  const clock = options.clock ?? new SystemClock();
  const ids = options.ids ?? new UuidV7IdGenerator();
  const jobs = new ReplyJobs(unitOfWork, unitOfWork.notifications, clock, { writeIntervalMs: 20, staleMs: 30_000, ...options.replies });
  const feed = new ReplyFeed(jobs, new BatchedStoredReplies(unitOfWork), unitOfWork.notifications);
  const personas = new JsonFilePersonaSource();
  const titles = new ConversationTitles(unitOfWork, model, personas, { mode: options.titles ?? 'first_message', timeoutMs: 1000 });
  const turns = new StartTurn(unitOfWork, personas, clock, ids, options.chat ?? { maxTextLength: 1000, historyMessages: 5, historyChars: 1000 }, jobs, titles);
  return {
    unitOfWork,
    jobs,
    feed,
    turns,
    send: new SendChatMessage(turns, model, jobs, feed),
    stream: new StreamChatReply(turns, model, jobs, feed),
  };
}
