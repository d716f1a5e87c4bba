import { expect } from 'chai';
import type { SearchFilters, SearchHit, SearchPosition } from '../../src/application/ports/message-search.js';
import { Conversation } from '../../src/domain/conversation.js';
import { parseSearchQuery } from '../../src/domain/search-query.js';
import { aConversation, aMessage } from '../support/builders.js';
import { uid } from '../support/ids.js';
import { type MakeStore, withStore } from './store-fixture.js';

const NO_FILTERS: SearchFilters = { conversationId: null, role: null, from: null, to: null };
const BASE = Date.parse('2026-06-01T12:00:00.000Z');

/** The same answers from every store: which messages, in which order, and what matched in them. */
export function messageSearchContract(make: MakeStore): void {
  describe('MessageSearch contract', () => {
    const store = withStore(make);

    /** Stores `texts` in a new conversation of `userId` (a second apart, in order); returns their ids. */
    async function said(texts: string[], userId = uid('user'), conversation: Conversation = aConversation(userId)): Promise<{ userId: string; ids: string[]; conversation: Conversation }> {
      const messages = texts.map((text, i) => aMessage(conversation, { text, createdAt: new Date(BASE + i * 1000), role: i % 2 === 0 ? 'user' : 'assistant' }));
      await store.run((r) => r.messages.append(conversation, messages));
      return { userId, ids: messages.map((m) => m.messageId), conversation };
    }

    const search = (userId: string, q: string, options: { filters?: Partial<SearchFilters>; limit?: number; after?: SearchPosition | null } = {}) =>
      store.unitOfWork.run(
        (r) => r.search.search({ userId, query: parseSearchQuery(q), filters: { ...NO_FILTERS, ...options.filters }, limit: options.limit ?? 20, after: options.after ?? null }),
        { atomic: false },
      );

    const idsOf = (hits: SearchHit[]) => hits.map((h) => h.message.messageId);
    const words = (hit: SearchHit) => hit.matches.map((s) => [...hit.message.text].slice(s.start, s.end).join(''));

    it('finds words in their inflected forms, and says which words matched', async () => {
      const { userId, ids } = await said(['We deployed Kubernetes clusters yesterday and the deployment went fine.', 'Nothing to see here.']);
      const page = await search(userId, 'deploying');
      expect(idsOf(page.hits)).to.deep.equal([ids[0]]);
      expect(words(page.hits[0]!)).to.deep.equal(['deployed', 'deployment']);
      expect(page.hits[0]!.position.stage).to.equal('words');
      expect(page.next).to.equal(null);
    });

    it('finds a quoted phrase only with its words together and in order', async () => {
      const { userId, ids } = await said(['The red car is fast.', 'A car that is red.', 'Red cars everywhere.']);
      const page = await search(userId, '"red car"');
      expect(idsOf(page.hits)).to.have.members([ids[0], ids[2]]);
    });

    it('leaves out messages with an excluded word or phrase', async () => {
      const { userId, ids } = await said(['cats and dogs', 'cats only', 'cats and "big dogs"', 'cats and big fish']);
      expect(idsOf((await search(userId, 'cats -dogs')).hits)).to.have.members([ids[1], ids[3]]);
      expect(idsOf((await search(userId, 'cats -"big fish"')).hits)).to.have.members([ids[0], ids[1], ids[2]]);
      expect((await search(userId, '-cats')).hits).to.deep.equal([]);
    });

    it('reads OR as web search engines do: a b OR c d is a AND (b OR c) AND d', async () => {
      const { userId, ids } = await said(['apples', 'bananas', 'cherries', 'alpha bravo delta', 'alpha charlie delta', 'bravo charlie']);
      expect(idsOf((await search(userId, 'apples OR bananas')).hits)).to.have.members([ids[0], ids[1]]);
      expect(idsOf((await search(userId, 'alpha bravo OR charlie delta')).hits)).to.have.members([ids[3], ids[4]]);
    });

    it('searches a long message of repeated words (a million characters) like any: its words, a phrase, and nothing found', async () => {
      // The memory store once analysed such a text in time quadratic in its repeats: half a minute, the process blocked.
      const { userId, ids } = await said(['lorem ipsum dolor sit amet consectetur '.repeat(26_000), 'a short message']);
      expect(idsOf((await search(userId, 'ipsum')).hits)).to.deep.equal([ids[0]]);
      expect(idsOf((await search(userId, '"dolor sit amet"')).hits)).to.deep.equal([ids[0]]);
      expect(idsOf((await search(userId, '"amet dolor"')).hits)).to.deep.equal([]);
    });

    it('finds a close misspelling when the words find nothing', async () => {
      const { userId, ids } = await said(['We run Kubernetes in production.', 'Totally unrelated text.']);
      const page = await search(userId, 'kuberntes');
      expect(idsOf(page.hits)).to.deep.equal([ids[0]]);
      expect(page.hits[0]!.position.stage).to.equal('loose');
      expect(idsOf((await search(userId, 'kubernets')).hits)).to.deep.equal([ids[0]]);
      expect(idsOf((await search(userId, 'prodution')).hits)).to.deep.equal([ids[0]]);
      expect(words(page.hits[0]!)).to.deep.equal(['Kubernetes']);
    });

    it('finds a substring when the words find nothing', async () => {
      const { userId, ids } = await said(['Our microservices architecture is growing.', 'Something else.']);
      const page = await search(userId, 'servic');
      expect(idsOf(page.hits)).to.deep.equal([ids[0]]);
      expect(words(page.hits[0]!)).to.deep.equal(['servic']);
    });

    it('finds Chinese (text without spaces) by substring, with code-point offsets', async () => {
      const { userId, ids } = await said(['我们讨论了机器学习和搜索引擎的部署。', '今天天气很好。', '🎉 机器学习 party']);
      const page = await search(userId, '机器学习');
      expect(idsOf(page.hits)).to.have.members([ids[0], ids[2]]);
      const first = page.hits.find((h) => h.message.messageId === ids[0])!;
      expect(first.matches).to.deep.equal([{ start: 5, end: 9 }]);
      expect(idsOf((await search(userId, '搜索')).hits)).to.deep.equal([ids[0]]);
    });

    it('counts offsets in code points', async () => {
      const { userId } = await said(['🎉🎉 party time']);
      const [hit] = (await search(userId, 'party')).hits;
      expect(hit!.matches).to.deep.equal([{ start: 3, end: 8 }]);
    });

    it('is not misled by private-use characters in the text (what a store may mark matches with)', async () => {
      const { userId } = await said(['Deploy \uE000now\uE001 \uE002then\uE003 deployed.', 'Deploy \uE000now\uE001 and deployed.']);
      const page = await search(userId, 'deploy');
      expect(page.hits.map(words)).to.deep.equal([['Deploy', 'deployed'], ['Deploy', 'deployed']]);
    });

    it("never returns another user's message, however identical", async () => {
      const text = 'The quarterly budget review is on Thursday.';
      const mine = await said([text]);
      await said([text]); // another user's
      for (const q of ['budget', 'budgte', 'quarterly budget', '"budget review"', 'Thursday']) {
        expect(idsOf((await search(mine.userId, q)).hits), q).to.deep.equal(mine.ids);
      }
      expect((await search(uid('user'), 'budget')).hits).to.deep.equal([]);
    });

    it('never finds the messages of a conversation once they are deleted', async () => {
      const { userId, conversation } = await said(['Remember the secret launch plan.', 'The launch is in May.']);
      await store.run((r) => r.messages.deleteOwned(conversation.conversationId, userId, null));
      for (const q of ['launch', 'lanch', 'secret']) expect((await search(userId, q)).hits, q).to.deep.equal([]);
    });

    it('never returns a reply still being written', async () => {
      const userId = uid('user');
      const conversation = aConversation(userId);
      const writing = aMessage(conversation, { role: 'assistant', text: 'The photosynthesis answer so far', status: 'in_progress', progressAt: new Date() });
      await store.run((r) => r.messages.append(conversation, [writing]));
      expect((await search(userId, 'photosynthesis')).hits).to.deep.equal([]);
    });

    it('ranks by relevance, then recency', async () => {
      const userId = uid('user');
      const { ids } = await said(['Garden notes: tomatoes, tomatoes and more tomatoes.', 'A long note about many things in the garden, the shed, the fence and also tomatoes somewhere.'], userId);
      const later = await said(['Garden notes: tomatoes, tomatoes and more tomatoes.'], userId, aConversation(userId));
      const page = await search(userId, 'tomato');
      // Both copies of the dense text (equally relevant, equally recent) above the long one.
      expect(idsOf(page.hits).slice(2)).to.deep.equal([ids[1]]);
      expect(idsOf(page.hits).slice(0, 2)).to.have.members([ids[0], later.ids[0]]);
      const ordered = await said(['pumpkin soup', 'pumpkin soup', 'pumpkin soup'], userId, aConversation(userId));
      expect(idsOf((await search(userId, 'pumpkin')).hits)).to.deep.equal([...ordered.ids].reverse());
    });

    it('filters by conversation, role and time (bounds included)', async () => {
      const userId = uid('user');
      const one = await said(['weather alpha', 'weather bravo', 'weather delta'], userId);
      const two = await said(['weather echo'], userId, aConversation(userId));
      expect(idsOf((await search(userId, 'weather', { filters: { conversationId: two.conversation.conversationId } })).hits)).to.deep.equal(two.ids);
      expect(idsOf((await search(userId, 'weather', { filters: { role: 'assistant' } })).hits)).to.deep.equal([one.ids[1]]);
      const window = { from: new Date(BASE + 1000), to: new Date(BASE + 2000), conversationId: one.conversation.conversationId };
      expect(idsOf((await search(userId, 'weather', { filters: window })).hits)).to.deep.equal([one.ids[2], one.ids[1]]);
    });

    it('pages through results without overlap or gaps, in both stages', async () => {
      const { userId, ids } = await said(Array.from({ length: 7 }, (_, i) => `Invoice number ${i} for the consulting work.`));
      for (const q of ['invoice', 'invoise']) {
        const seen: string[] = [];
        let after: SearchPosition | null = null;
        let pages = 0;
        do {
          const page = await search(userId, q, { limit: 3, after });
          seen.push(...idsOf(page.hits));
          after = page.next;
          pages++;
        } while (after !== null && pages < 10);
        expect(pages, q).to.equal(3);
        expect(seen, q).to.have.members(ids);
        expect(new Set(seen).size, q).to.equal(ids.length);
      }
    });

    it("gives the conversation's title (its first message's start)", async () => {
      const { userId } = await said(['Planning the trip to Lisbon', 'Book the hotel near the river.']);
      const [hit] = (await search(userId, 'hotel')).hits;
      expect(hit!.conversationTitle).to.equal('Planning the trip to Lisbon');
    });

    it('never returns the messages of a temporary conversation', async () => {
      const userId = uid('user');
      const kept = await said(['The secret recipe for pancakes'], userId);
      const temporary = Conversation.create({ conversationId: uid('temp'), userId, createdAt: new Date(BASE), temporary: true });
      await said(['The secret recipe for waffles'], userId, temporary);
      expect(idsOf((await search(userId, 'secret recipe')).hits)).to.deep.equal(kept.ids);
      expect((await search(userId, 'waffles')).hits).to.deep.equal([]);
    });
  });
}
