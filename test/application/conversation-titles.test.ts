import { expect } from 'chai';
import type { ChatModel, ChatReply, ChatRequest } from '../../src/application/ports/chat-model.js';
import { ConversationTitles } from '../../src/application/conversations/conversation-titles.js';
import { InMemoryUnitOfWork } from '../../src/adapters/persistence/memory/in-memory-unit-of-work.js';
import { JsonFilePersonaSource } from '../../src/adapters/persona/json-file-persona-source.js';
import { Message } from '../../src/domain/message.js';

/** A model that names every conversation "Weather talk" and keeps the signal each call got. */
class NamingModel implements ChatModel {
  signals: (AbortSignal | undefined)[] = [];
  constructor(readonly immediate?: boolean) {}
  async complete(_request: ChatRequest, signal?: AbortSignal): Promise<ChatReply> {
    this.signals.push(signal);
    return { text: 'Weather talk', finishReason: 'stop', model: 'naming', usage: null };
  }
  async *stream(): AsyncIterable<never> {}
}

const question = Message.create({ messageId: 'q1', conversationId: 'c1', userId: 'u1', role: 'user', text: 'Will it rain tomorrow?', createdAt: new Date(), metadata: {}, replyTo: null });

describe('ConversationTitles (TITLE_MODE=model)', () => {
  for (const immediate of [false, true]) {
    it(`asks the model for a title, with a deadline signal unless the model answers at once (immediate: ${immediate})`, async () => {
      const model = new NamingModel(immediate || undefined);
      const titles = new ConversationTitles(new InMemoryUnitOfWork(), model, new JsonFilePersonaSource(), { mode: 'model', timeoutMs: 1000 });
      const naming = titles.namingFor(question)!;
      expect(await naming.propose!()).to.equal('Weather talk');
      expect(naming.propose!(), 'asked once: the same proposal').to.equal(naming.propose!());
      expect(naming.fallback).to.equal('Will it rain tomorrow?');
      expect(model.signals).to.have.length(1);
      if (immediate) expect(model.signals[0]).to.equal(undefined);
      else expect(model.signals[0]).to.be.instanceOf(AbortSignal);
    });
  }
});
