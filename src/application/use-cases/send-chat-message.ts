import type { ChatModel } from '../ports/chat-model.js';
import type { ChatInput, ChatTurns } from '../services/chat-turns.js';

export interface ChatExchange {
  response: string;
  conversationId: string;
  messageId: string;
  userMessageId: string;
  createdAt: Date;
}

/** POST /v1/chat: store the user's message, ask the model, store and return the reply. */
export class SendChatMessage {
  constructor(
    private readonly turns: ChatTurns,
    private readonly model: ChatModel,
  ) {}

  async execute(input: ChatInput, signal?: AbortSignal): Promise<ChatExchange> {
    const turn = await this.turns.begin(input);
    const reply = turn.storedReply ?? (await this.turns.finish(turn, await this.model.complete(turn.request, signal)));
    return {
      response: reply.text,
      conversationId: turn.conversation.conversationId,
      messageId: reply.messageId,
      userMessageId: turn.userMessage.messageId,
      createdAt: reply.createdAt,
    };
  }
}
