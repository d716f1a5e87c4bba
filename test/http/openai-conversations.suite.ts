import { expect } from 'chai';
import type OpenAI from 'openai';
import { uid } from '../support/ids.js';
import { expectStatus, failure, responsesClient } from '../support/responses-client.js';
import { ScriptedChatModel } from '../support/scripted-chat-model.js';
import type { TestService } from '../support/service.js';
import type { StartService } from './openai-responses.suite.js';

type Item = OpenAI.Conversations.ConversationItem;
const textOf = (item: Item) => (item.type === 'message' ? item.content.map((c) => ('text' in c ? c.text : '')).join('') : '');

/**
 * OpenAI's Conversations API through the official SDK: an OpenAI conversation is a native
 * conversation (the same id), its items the native messages, both ways.
 */
export function openAiConversationsSuite(start: StartService): void {
  describe("OpenAI's Conversations API, through the official SDK", () => {
    const model = new ScriptedChatModel();
    let service: TestService;
    before(async () => {
      service = await start({}, { chatModel: model });
    });
    after(() => service?.stop()); // unset when the store's suite was skipped (no PostgreSQL here)
    beforeEach(() => model.forgetCalls());

    it('creates a conversation with items and metadata, which the native API reads as its own', async () => {
      const user = uid('u');
      const client = await responsesClient(service, user);
      const conversation = await client.conversations.create({
        items: [
          { role: 'system', content: 'You plan trips.' },
          { role: 'user', content: 'I want to see Lisbon.' },
        ],
        metadata: { topic: 'travel' },
      });
      expect(conversation).to.include({ object: 'conversation' });
      expect(conversation.metadata).to.deep.equal({ topic: 'travel' });
      expect(conversation.created_at).to.be.closeTo(Date.now() / 1000, 60);
      expect(await client.conversations.retrieve(conversation.id)).to.deep.equal(conversation);
      const native = await service.post('/api/chat/loadMessages', { user_id: user, conversation_id: conversation.id });
      expect(native.json.messages.map((m: { role: string; text: string }) => [m.role, m.text])).to.deep.equal([
        ['system', 'You plan trips.'],
        ['user', 'I want to see Lisbon.'],
      ]);
      // A response in it follows its head; the model reads the items.
      const pending = client.responses.create({ model: 'm', input: 'When should I go?', conversation: conversation.id });
      const call = await model.nextCall();
      call.say('In spring.').finish();
      const response = await pending;
      expect(call.request.history).to.deep.equal([
        { role: 'system', text: 'You plan trips.' },
        { role: 'user', text: 'I want to see Lisbon.' },
      ]);
      const items = await client.conversations.items.list(conversation.id, { order: 'asc' });
      expect(items.data.map(textOf)).to.deep.equal(['You plan trips.', 'I want to see Lisbon.', 'When should I go?', 'In spring.']);
      expect(items.data.at(-1)).to.include({ id: response.id, role: 'assistant', status: 'completed' });
      expect(items.has_more).to.equal(false);
    });

    it('a native conversation is an OpenAI conversation, with metadata {} until set; update replaces it', async () => {
      const user = uid('u');
      const client = await responsesClient(service, user);
      const conversationId = uid('c');
      await service.post('/api/chat/saveMessage', { user_id: user, conversation_id: conversationId, role: 'user', text: 'Saved natively' });
      const conversation = await client.conversations.retrieve(conversationId);
      expect(conversation).to.include({ id: conversationId, object: 'conversation' });
      expect(conversation.metadata).to.deep.equal({});
      expect((await client.conversations.update(conversationId, { metadata: { a: '1', b: '2' } })).metadata).to.deep.equal({ a: '1', b: '2' });
      expect((await client.conversations.update(conversationId, { metadata: { c: '3' } })).metadata).to.deep.equal({ c: '3' });
      expect((await client.conversations.retrieve(conversationId)).metadata).to.deep.equal({ c: '3' });
      // null, which the SDK's type allows, clears it
      expect((await client.conversations.update(conversationId, { metadata: null })).metadata).to.deep.equal({});
      expect((await client.conversations.retrieve(conversationId)).metadata).to.deep.equal({});
      expect((await client.conversations.items.list(conversationId)).data.map(textOf)).to.deep.equal(['Saved natively']);
    });

    it('lists the active branch newest first by default, a page at a time', async () => {
      const client = await responsesClient(service, uid('u'));
      const conversation = await client.conversations.create({ items: ['one', 'two', 'three', 'four', 'five'].map((text) => ({ role: 'user' as const, content: text })) });
      const first = await client.conversations.items.list(conversation.id, { limit: 2 });
      expect(first.data.map(textOf)).to.deep.equal(['five', 'four']);
      expect(first.has_more).to.equal(true);
      const second = await client.conversations.items.list(conversation.id, { limit: 2, after: first.last_id! });
      expect(second.data.map(textOf)).to.deep.equal(['three', 'two']);
      const third = await client.conversations.items.list(conversation.id, { limit: 2, after: second.last_id! });
      expect(third.data.map(textOf)).to.deep.equal(['one']);
      expect(third.has_more).to.equal(false);
      const ascending = await client.conversations.items.list(conversation.id, { limit: 3, order: 'asc', after: first.data[1]!.id });
      expect(ascending.data.map(textOf)).to.deep.equal(['five']);
      // The SDK's auto-pagination walks every page.
      const all: string[] = [];
      for await (const item of client.conversations.items.list(conversation.id, { limit: 2, order: 'asc' })) all.push(textOf(item));
      expect(all).to.deep.equal(['one', 'two', 'three', 'four', 'five']);
    });

    it('adds, retrieves and deletes items; a deleted item leaves the branch whole', async () => {
      const user = uid('u');
      const client = await responsesClient(service, user);
      const conversation = await client.conversations.create({ items: [{ role: 'user', content: 'first' }] });
      const added = await client.conversations.items.create(conversation.id, {
        items: [
          { role: 'assistant', content: [{ type: 'output_text', text: 'second', annotations: [] }] as never },
          { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'third' }] },
        ],
      });
      expect(added.data.map((i) => (i.type === 'message' ? [i.role, textOf(i)] : []))).to.deep.equal([
        ['assistant', 'second'],
        ['developer', 'third'],
      ]);
      const second = added.data[0]!;
      const secondId = (second as { id: string }).id;
      const retrieved = await client.conversations.items.retrieve(secondId, { conversation_id: conversation.id });
      expect(retrieved).to.deep.equal(second);
      const afterDelete = await client.conversations.items.delete(secondId, { conversation_id: conversation.id });
      expect(afterDelete).to.include({ id: conversation.id, object: 'conversation' });
      expect((await client.conversations.items.list(conversation.id, { order: 'asc' })).data.map(textOf)).to.deep.equal(['first', 'third']);
      await expectStatus(client.conversations.items.retrieve(secondId, { conversation_id: conversation.id }), 404);
      await expectStatus(client.conversations.items.delete(secondId, { conversation_id: conversation.id }), 404);
      // A page after the deleted item, or after an id that was never one, is refused naming `after` (it was an empty last page: paging stopped early, silently).
      const other = await client.conversations.create({ items: [{ role: 'user', content: 'elsewhere' }] });
      const elsewhere = (await client.conversations.items.list(other.id)).data[0]!.id;
      for (const after of [secondId, 'nope', elsewhere]) {
        expect(await failure(client.conversations.items.list(conversation.id, { order: 'asc', after })), after).to.include({ status: 400, param: 'after', code: 'invalid_value' });
      }
    });

    it('a page after an item of another branch is refused naming after (it listed that branch, or nothing)', async () => {
      const client = await responsesClient(service, uid('u'));
      const answered = async (request: Parameters<typeof client.responses.create>[0]) => {
        const pending = client.responses.create({ ...request, stream: false });
        (await model.nextCall()).say('Please tell me more.').finish();
        return pending;
      };
      const first = await answered({ model: 'm', input: 'Plan a trip to Rome' });
      const food = await answered({ model: 'm', input: 'What about food?', previous_response_id: first.id });
      await answered({ model: 'm', input: 'What about museums?', previous_response_id: first.id });
      const conversationId = first.conversation!.id;
      for (const order of ['asc', 'desc'] as const) {
        expect(await failure(client.conversations.items.list(conversationId, { order, after: food.id })), order).to.include({ status: 400, param: 'after', code: 'invalid_value' });
      }
      const branch = (await client.conversations.items.list(conversationId, { order: 'asc' })).data;
      expect(branch.map(textOf)).to.have.length(4);
      const onward = await client.conversations.items.list(conversationId, { order: 'asc', after: branch[1]!.id });
      expect(onward.data.map((item) => item.id)).to.deep.equal(branch.slice(2).map((item) => item.id));
      expect((await client.conversations.items.list(conversationId, { order: 'asc', after: branch[3]!.id })).data, 'after the head: nothing').to.deep.equal([]);
    });

    it('delete removes the conversation whole: nothing of it is found by either API; a reply in progress is stopped first', async () => {
      const user = uid('u');
      const client = await responsesClient(service, user);
      const conversation = await client.conversations.create({ items: [{ role: 'user', content: 'Hello' }], metadata: { a: 'b' } });
      const pending = client.responses.create({ model: 'm', input: 'Keep talking', conversation: conversation.id, background: true });
      const call = await model.nextCall();
      const running = await pending;
      call.say('Talking ');
      const deleted = await client.conversations.delete(conversation.id);
      expect(deleted).to.deep.equal({ id: conversation.id, object: 'conversation.deleted', deleted: true });
      await call.aborted;
      await expectStatus(client.conversations.retrieve(conversation.id), 404);
      await expectStatus(client.conversations.items.list(conversation.id), 404);
      await expectStatus(client.responses.retrieve(running.id), 404);
      const native = await service.post('/api/chat/loadMessages', { user_id: user, conversation_id: conversation.id });
      expect(native.json.messages).to.deep.equal([]);
      const listed = await service.call('GET', `/api/chat/conversations?user_id=${encodeURIComponent(user)}`);
      expect(listed.json.conversations).to.deep.equal([]);
      await expectStatus(client.conversations.delete(conversation.id), 404);
    });

    it('refuses bad metadata and items with 400 naming them', async () => {
      const client = await responsesClient(service, uid('u'));
      const many = Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v']));
      expect(await failure(client.conversations.create({ metadata: many }))).to.include({ status: 400, param: 'metadata' });
      expect(await failure(client.conversations.create({ metadata: { k: 'v'.repeat(513) } }))).to.include({ status: 400, param: 'metadata.k' });
      const image = await failure(client.conversations.create({ items: [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://example.com/a.png', detail: 'auto' }] }] }));
      expect(image).to.include({ status: 400, param: 'items[0].content[0]' });
      expect(image.message).to.include('input_image');
      const conversation = await client.conversations.create({});
      expect(await failure(client.conversations.items.create(conversation.id, { items: [] }))).to.include({ status: 400, param: 'items' });
      expect(await failure(client.conversations.update(conversation.id, {} as never))).to.include({ status: 400, param: 'metadata' });
    });
  });
}
