import { expect } from 'chai';
import type { ResponseRecord } from '../../src/application/ports/response-repository.js';
import { Message } from '../../src/domain/message.js';
import { aConversation, aMessage, aSession } from '../support/builders.js';
import { uid } from '../support/ids.js';
import { claimed, type MakeStore, withStore } from './store-fixture.js';

const aRecord = (responseId: string, props: Partial<ResponseRecord> = {}): ResponseRecord => ({
  responseId,
  model: 'gpt-test',
  instructions: 'Answer in French.',
  previousResponseId: null,
  background: false,
  metadata: { topic: 'travel' },
  inputIds: [uid('msg'), uid('msg')],
  maxOutputTokens: 200,
  temperature: 0.7,
  inputTokens: 42,
  ...props,
});

/** A reply to `question`, finished. */
const aReply = (question: Message, text = 'an answer', open = false) =>
  Message.create({
    messageId: uid('reply'),
    conversationId: question.conversationId,
    userId: question.userId,
    role: 'assistant',
    text,
    createdAt: new Date(question.createdAt.getTime() + 1),
    metadata: { model: 'm' },
    replyTo: question.messageId,
    parentId: question.messageId,
    ...(open ? { status: 'in_progress' as const, progressAt: new Date() } : {}),
  });

export function responseRepositoryContract(make: MakeStore): void {
  describe('ResponseRepository contract', () => {
    const store = withStore(make);

    /** A conversation with a question and its reply. */
    const exchange = async () => {
      const conversation = aConversation();
      const question = aMessage(conversation);
      const reply = aReply(question);
      await store.run((r) => r.messages.append(conversation, [question, reply]));
      return { conversation, question, reply };
    };

    describe('responses', () => {
      it('keeps the record of a stored reply, and replaces it when saved again', async () => {
        const { reply } = await exchange();
        const record = aRecord(reply.messageId);
        await store.run((r) => r.responses.save(record));
        expect(await store.run((r) => r.responses.findById(reply.messageId))).to.deep.equal(record);
        const again = aRecord(reply.messageId, { instructions: null, metadata: {}, inputIds: [], maxOutputTokens: null, temperature: null, background: true, previousResponseId: 'p' });
        await store.run((r) => r.responses.save(again));
        expect(await store.run((r) => r.responses.findById(reply.messageId))).to.deep.equal(again);
      });

      it('keeps nothing for a reply that is not stored; null for an unknown id', async () => {
        const id = uid('reply');
        await store.run((r) => r.responses.save(aRecord(id)));
        expect(await store.run((r) => r.responses.findById(id))).to.equal(null);
      });

      it('goes with its reply when the reply is deleted', async () => {
        const { conversation, reply } = await exchange();
        await store.run((r) => r.responses.save(aRecord(reply.messageId)));
        await store.run((r) => r.messages.deleteOwned(conversation.conversationId, conversation.userId, [reply.messageId]));
        expect(await store.run((r) => r.responses.findById(reply.messageId))).to.equal(null);
      });

      it('stays with its reply while the reply is written and finished', async () => {
        const conversation = aConversation();
        const question = aMessage(conversation);
        const opened = aReply(question, '', true);
        await store.run((r) => r.replies.begin({ conversation, userMessage: question, reply: opened, historyLimit: 5 }));
        await store.run((r) => r.responses.save(aRecord(opened.messageId)));
        await store.run((r) => r.replies.advance([{ replyId: opened.messageId, from: 0, text: 'Hello' }], new Date()));
        await store.run((r) => r.replies.finish(opened.with({ text: 'Hello', status: 'completed', progressAt: null, finishReason: 'stop' }), new Date()));
        expect((await store.run((r) => r.responses.findById(opened.messageId)))?.instructions).to.equal('Answer in French.');
      });

      it('is not kept when the transaction that saved it fails', async () => {
        const { reply } = await exchange();
        const failed = store.run(async (r) => {
          await r.responses.save(aRecord(reply.messageId));
          throw new Error('undo');
        });
        expect(((await failed.catch((error: unknown) => error)) as Error).message).to.equal('undo');
        expect(await store.run((r) => r.responses.findById(reply.messageId))).to.equal(null);
      });
    });

    describe('endings (a response removed before its first piece)', () => {
      /** A response opened (its reply in progress, no text) with its record. */
      const opened = async (withRecord = true) => {
        const conversation = aConversation();
        const question = aMessage(conversation);
        const reply = aReply(question, '', true);
        await store.run((r) => r.replies.begin({ conversation, userMessage: question, reply, historyLimit: 5 }));
        if (withRecord) await store.run((r) => r.responses.save(aRecord(reply.messageId, { inputIds: [question.messageId] })));
        return { conversation, question, reply };
      };
      const failed = (reply: Message) => reply.with({ status: 'completed', progressAt: null, finishReason: 'error', metadata: { model: 'm', error: 'the language model failed' } });

      it('keeps what the response shows in place of the removed reply: why it ended, its metadata, its record', async () => {
        const { conversation, question, reply } = await opened();
        expect(await store.run((r) => r.replies.finish(failed(reply), new Date()))).to.equal(null);
        expect(await store.run((r) => r.messages.findById(reply.messageId))).to.equal(null);
        const ending = await store.run((r) => r.responses.findEnding(reply.messageId));
        expect(ending).to.deep.equal({
          responseId: reply.messageId,
          conversationId: conversation.conversationId,
          userId: conversation.userId,
          replyTo: question.messageId,
          createdAt: reply.createdAt,
          finishReason: 'error',
          metadata: { model: 'm', error: 'the language model failed' },
          record: aRecord(reply.messageId, { inputIds: [question.messageId] }),
        });
      });

      it('keeps one for a native reply too (without a record), none for a reply that finished with text; null for an unknown id', async () => {
        const native = await opened(false);
        await store.run((r) => r.replies.finish(failed(native.reply), new Date()));
        expect(await store.run((r) => r.responses.findEnding(native.reply.messageId))).to.deep.include({ finishReason: 'error', record: null, replyTo: native.question.messageId });
        const unsaid = await opened(false);
        await store.run((r) => r.replies.finish(unsaid.reply, new Date())); // no reason given: a stop
        expect((await store.run((r) => r.responses.findEnding(unsaid.reply.messageId)))?.finishReason).to.equal('cancelled');
        const written = await opened();
        await store.run((r) => r.replies.finish(failed(written.reply).with({ text: 'Half' }), new Date()));
        expect(await store.run((r) => r.responses.findEnding(written.reply.messageId))).to.equal(null);
        expect(await store.run((r) => r.responses.findEnding(uid('reply')))).to.equal(null);
      });

      it('keeps one for an empty reply the stale sweep removes, as interrupted', async () => {
        const { reply } = await opened();
        await store.run((r) => r.replies.interruptStale(new Date(Date.now() + 60_000), new Date()));
        expect(await store.run((r) => r.messages.findById(reply.messageId))).to.equal(null);
        expect((await store.run((r) => r.responses.findEnding(reply.messageId)))?.finishReason).to.equal('interrupted');
      });

      it("is deleted by its user only; it goes with its conversation, and with its user's erasure", async () => {
        const { conversation, reply } = await opened();
        await store.run((r) => r.replies.finish(failed(reply), new Date()));
        expect(await store.run((r) => r.responses.deleteEnding(reply.messageId, uid('intruder')))).to.equal(false);
        expect(await store.run((r) => r.responses.deleteEnding(reply.messageId, conversation.userId))).to.equal(true);
        expect(await store.run((r) => r.responses.findEnding(reply.messageId))).to.equal(null);
        expect(await store.run((r) => r.responses.deleteEnding(reply.messageId, conversation.userId))).to.equal(false);

        const second = await opened();
        await store.run((r) => r.replies.finish(failed(second.reply), new Date()));
        await store.run((r) => r.responses.deleteConversation(second.conversation.conversationId, second.conversation.userId));
        expect(await store.run((r) => r.responses.findEnding(second.reply.messageId))).to.equal(null);

        const third = await opened();
        await store.run((r) => r.replies.finish(failed(third.reply), new Date()));
        await store.run((r) => r.conversations.eraseUser(third.conversation.userId));
        expect(await store.run((r) => r.responses.findEnding(third.reply.messageId))).to.equal(null);
      });

      it('is undone with a transaction that fails, and comes back with an undone deletion', async () => {
        const { conversation, reply } = await opened();
        const undone = store.run(async (r) => {
          await r.replies.finish(failed(reply), new Date());
          throw new Error('undo');
        });
        expect(((await undone.catch((error: unknown) => error)) as Error).message).to.equal('undo');
        expect(await store.run((r) => r.responses.findEnding(reply.messageId))).to.equal(null);
        expect((await store.run((r) => r.messages.findById(reply.messageId)))?.status).to.equal('in_progress');
        await store.run((r) => r.replies.finish(failed(reply), new Date()));
        const deletion = store.run(async (r) => {
          await r.responses.deleteConversation(conversation.conversationId, conversation.userId);
          throw new Error('undo');
        });
        expect(((await deletion.catch((error: unknown) => error)) as Error).message).to.equal('undo');
        expect((await store.run((r) => r.responses.findEnding(reply.messageId)))?.finishReason).to.equal('error');
      });
    });

    describe('conversation metadata', () => {
      it("is null until saved, then the saved pairs; saving again replaces them", async () => {
        const conversation = await store.run((r) => claimed(r, aConversation()));
        expect(await store.run((r) => r.responses.conversationMetadata(conversation.conversationId))).to.equal(null);
        await store.run((r) => r.responses.saveConversationMetadata(conversation.conversationId, { a: '1', b: '2' }));
        expect(await store.run((r) => r.responses.conversationMetadata(conversation.conversationId))).to.deep.equal({ a: '1', b: '2' });
        await store.run((r) => r.responses.saveConversationMetadata(conversation.conversationId, { c: '3' }));
        expect(await store.run((r) => r.responses.conversationMetadata(conversation.conversationId))).to.deep.equal({ c: '3' });
      });

      it('is not kept for a conversation that is not stored', async () => {
        const id = uid('conv');
        await store.run((r) => r.responses.saveConversationMetadata(id, { a: '1' }));
        expect(await store.run((r) => r.responses.conversationMetadata(id))).to.equal(null);
      });
    });

    describe('deleteConversation', () => {
      it('deletes the conversation with its messages, sessions, records and metadata; the user stays', async () => {
        const { conversation, question, reply } = await exchange();
        await store.run((r) => r.sessions.save(aSession(conversation)));
        await store.run((r) => r.responses.save(aRecord(reply.messageId)));
        await store.run((r) => r.responses.saveConversationMetadata(conversation.conversationId, { a: '1' }));
        const deletion = await store.run((r) => r.responses.deleteConversation(conversation.conversationId, conversation.userId));
        expect(deletion.conversation?.conversationId).to.equal(conversation.conversationId);
        expect(deletion).to.include({ messages: 2, sessions: 1 });
        expect(await store.run((r) => r.conversations.findById(conversation.conversationId))).to.equal(null);
        for (const id of [question.messageId, reply.messageId]) expect(await store.run((r) => r.messages.findById(id))).to.equal(null);
        expect(await store.run((r) => r.responses.findById(reply.messageId))).to.equal(null);
        expect(await store.run((r) => r.responses.conversationMetadata(conversation.conversationId))).to.equal(null);
        // The user keeps their other conversations, and the id may be used afresh.
        const other = await store.run((r) => claimed(r, aConversation(conversation.userId)));
        expect(other.userId).to.equal(conversation.userId);
        const again = await store.run((r) => r.messages.append(conversation, [aMessage(conversation)]));
        expect(again.inserted).to.have.length(1);
      });

      it("deletes nothing of another user's conversation, and says whose it is; nothing for an unknown one", async () => {
        const { conversation, reply } = await exchange();
        const deletion = await store.run((r) => r.responses.deleteConversation(conversation.conversationId, uid('intruder')));
        expect(deletion).to.include({ messages: 0, sessions: 0 });
        expect(deletion.conversation?.userId).to.equal(conversation.userId);
        expect(await store.run((r) => r.messages.findById(reply.messageId))).to.not.equal(null);
        expect(await store.run((r) => r.responses.deleteConversation(uid('conv'), conversation.userId))).to.deep.equal({ conversation: null, messages: 0, sessions: 0 });
      });

      it('is undone with a transaction that fails', async () => {
        const { conversation, reply } = await exchange();
        await store.run((r) => r.responses.saveConversationMetadata(conversation.conversationId, { a: '1' }));
        const failed = store.run(async (r) => {
          await r.responses.deleteConversation(conversation.conversationId, conversation.userId);
          throw new Error('undo');
        });
        expect(((await failed.catch((error: unknown) => error)) as Error).message).to.equal('undo');
        expect(await store.run((r) => r.messages.findById(reply.messageId))).to.not.equal(null);
        expect(await store.run((r) => r.responses.conversationMetadata(conversation.conversationId))).to.deep.equal({ a: '1' });
        const page = await store.run((r) => r.messages.pageBranch(conversation.conversationId, conversation.userId, { leafId: null, order: 'asc', limit: 10, after: null }));
        expect(page.messages.map((m) => m.message.messageId)).to.have.length(2);
      });
    });
  });
}
