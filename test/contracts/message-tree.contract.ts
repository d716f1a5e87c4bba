import { expect } from 'chai';
import type { BranchPage, BranchQuery } from '../../src/application/ports/message-repository.js';
import type { Conversation } from '../../src/domain/conversation.js';
import { Message, type MessageProps } from '../../src/domain/message.js';
import { finished } from '../../src/domain/reply.js';
import { aConversation, aMessage } from '../support/builders.js';
import { uid } from '../support/ids.js';
import { claimed, type MakeStore, withStore } from './store-fixture.js';

/** Creation times that strictly increase, so sibling order does not depend on the clock's resolution. */
let clock = Date.parse('2030-01-01T00:00:00.000Z');
const tick = () => new Date(++clock);

/** The tree of a conversation (ports: MessageRepository, ReplyRepository), the same in every store. */
export function messageTreeContract(make: MakeStore): void {
  describe('conversation tree contract', () => {
    const store = withStore(make);
    const say = (conversation: Conversation, text: string, props: Partial<MessageProps> = {}) =>
      aMessage(conversation, { text, createdAt: tick(), ...props });
    const append = (conversation: Conversation, messages: Message[]) => store.run((r) => r.messages.append(conversation, messages));
    const branch = (conversation: Conversation, query: Partial<BranchQuery> = {}): Promise<BranchPage> =>
      store.run((r) => r.messages.pageBranch(conversation.conversationId, conversation.userId, { leafId: null, order: 'asc', limit: 50, after: null, ...query }));
    const texts = (page: BranchPage) => page.messages.map((m) => m.message.text);
    /** Every message of a branch, reading pages of `size`. */
    const readAll = async (conversation: Conversation, query: Partial<BranchQuery>, size: number) => {
      const seen: string[] = [];
      let after: BranchQuery['after'] = query.after ?? null;
      for (let pages = 0; pages < 100; pages++) {
        const page: BranchPage = await branch(conversation, { ...query, limit: size, after });
        seen.push(...texts(page));
        if (!page.next) return seen;
        after = page.next;
      }
      throw new Error('pagination did not end');
    };

    /** one → two → three, and an edit of two: one → two' → three'. */
    async function forked() {
      const conversation = await store.run((r) => claimed(r, aConversation()));
      const [one, two, three] = [say(conversation, 'one'), say(conversation, 'two'), say(conversation, 'three')];
      await append(conversation, [one, two, three]);
      const [twoB, threeB] = [say(conversation, "two'", { parentId: one.messageId }), say(conversation, "three'")];
      await append(conversation, [twoB, threeB]);
      return { conversation, one, two, three, twoB, threeB };
    }

    it('a message follows the head, or the parent it names; the last one written becomes the head', async () => {
      const { conversation, one, two, twoB, threeB } = await forked();
      expect((await store.run((r) => r.messages.findById(two.messageId)))?.parentId).to.equal(one.messageId);
      expect((await store.run((r) => r.messages.findById(threeB.messageId)))?.parentId).to.equal(twoB.messageId);
      const active = await branch(conversation);
      expect(texts(active)).to.deep.equal(['one', "two'", "three'"]);
      expect(active.headId).to.equal(threeB.messageId);
      const next = say(conversation, 'four');
      const result = await append(conversation, [next]);
      expect(result.inserted).to.deep.equal([{ messageId: next.messageId, parentId: threeB.messageId, createdAt: next.createdAt }]);
    });

    it('a message listed in roots has no parent: a tree of its own beside the first message, and the head; a turn whose question is a root too', async () => {
      const { conversation, one } = await forked();
      const [oneB, twoB] = [say(conversation, "one'"), say(conversation, "two after one'")];
      const result = await store.run((r) => r.messages.append(conversation, [oneB, twoB], { roots: new Set([oneB.messageId]) }));
      expect(result.inserted).to.deep.equal([
        { messageId: oneB.messageId, parentId: null, createdAt: oneB.createdAt },
        { messageId: twoB.messageId, parentId: oneB.messageId, createdAt: twoB.createdAt },
      ]);
      const active = await branch(conversation);
      expect(texts(active)).to.deep.equal(["one'", "two after one'"]);
      expect(active.messages[0]!.siblings).to.deep.equal({ count: 2, index: 1, previousId: one.messageId, nextId: null });

      const question = say(conversation, "one''");
      const reply = aMessage(conversation, { role: 'assistant', text: '', createdAt: tick(), replyTo: question.messageId, parentId: question.messageId, status: 'in_progress', progressAt: new Date() });
      const record = await store.run((r) => r.replies.begin({ conversation, userMessage: question, root: true, reply, historyLimit: 10 }));
      expect(record.stored?.parentId).to.equal(null);
      expect(record.history).to.deep.equal([]);
      expect((await branch(conversation)).messages[0]!.siblings).to.include({ count: 3, index: 2 });
    });

    it('parallel appends that start a conversation still form one branch: each follows the head as it is', async () => {
      const conversation = aConversation();
      const messages = Array.from({ length: 40 }, (_, i) => say(conversation, `racing ${i}`));
      const results = await Promise.all(messages.map((m) => append(conversation, [m])));
      expect(results.every((r) => r.inserted.length === 1)).to.equal(true);
      const parents = results.map((r) => r.inserted[0]!.parentId);
      expect(parents.filter((p) => p === null)).to.have.length(1);
      expect(new Set(parents).size).to.equal(40);
      expect(await readAll(conversation, {}, 50)).to.have.length(40);
    });

    describe('times the service read before the conversation was free', () => {
      /** Each message of the conversation (every branch) whose time is before its parent's, as `child < parent`. */
      const olderThanParent = async (conversation: Conversation) => {
        const { page } = await store.run((r) => r.messages.pageOwned(conversation.conversationId, conversation.userId, 'asc', 500, null));
        const times = new Map(page.messages.map((m) => [m.messageId, m.createdAt]));
        return page.messages.flatMap((m) => {
          const parentAt = m.parentId === null ? undefined : times.get(m.parentId);
          return parentAt !== undefined && m.createdAt < parentAt ? [`${m.text} ${m.createdAt.toISOString()} < ${parentAt.toISOString()}`] : [];
        });
      };
      const stampedAppend = (conversation: Conversation, messages: Message[]) =>
        store.run((r) => r.messages.append(conversation, messages, { stamped: new Set(messages.map((m) => m.messageId)) }));
      /** A turn's question and reply, both dated `at`. */
      const turnAt = (conversation: Conversation, text: string, at: Date) => {
        const question = say(conversation, text, { createdAt: at });
        const reply = aMessage(conversation, { role: 'assistant', text: '', createdAt: at, replyTo: question.messageId, parentId: question.messageId, status: 'in_progress', progressAt: at });
        return { question, reply };
      };

      it('a message dated before the message it follows was written is stored at that message\'s time, as are those after it; a time a client gave is kept', async () => {
        const conversation = aConversation();
        const first = say(conversation, 'written meanwhile');
        await append(conversation, [first]);
        const before = new Date(first.createdAt.getTime() - 1000);
        const [late, next] = [say(conversation, 'dated before it', { createdAt: before }), say(conversation, 'and after that', { createdAt: before })];
        expect((await stampedAppend(conversation, [late, next])).inserted).to.deep.equal([
          { messageId: late.messageId, parentId: first.messageId, createdAt: first.createdAt },
          { messageId: next.messageId, parentId: late.messageId, createdAt: first.createdAt },
        ]);
        expect((await store.run((r) => r.messages.findById(next.messageId)))?.createdAt).to.deep.equal(first.createdAt);
        // A parent named (a branch) too; a message dated after what it follows keeps its time.
        const edit = say(conversation, 'an edit', { createdAt: before, parentId: first.messageId });
        expect((await stampedAppend(conversation, [edit])).inserted[0]!.createdAt).to.deep.equal(first.createdAt);
        const fresh = say(conversation, 'fresh');
        expect((await stampedAppend(conversation, [fresh])).inserted[0]!.createdAt).to.deep.equal(fresh.createdAt);
        // A client's own time stays, whatever it follows.
        const backdated = say(conversation, 'backdated by its client', { createdAt: before });
        expect((await append(conversation, [backdated])).inserted[0]!.createdAt).to.deep.equal(before);
        expect((await store.run((r) => r.messages.findById(backdated.messageId)))?.createdAt).to.deep.equal(before);
      });

      it('a turn dated before the message it follows was written stores its context, question and reply at that message\'s time', async () => {
        const conversation = aConversation();
        const first = say(conversation, 'written meanwhile');
        await append(conversation, [first]);
        const before = new Date(first.createdAt.getTime() - 1000);
        const { question, reply } = turnAt(conversation, 'asked before it', before);
        const context = say(conversation, 'context', { role: 'system', createdAt: before });
        const record = await store.run((r) => r.replies.begin({ conversation, context: [context], userMessage: question, reply, historyLimit: 10 }));
        expect(record.opened).to.equal(true);
        expect(record.stored?.createdAt).to.deep.equal(first.createdAt);
        for (const m of [context, question, reply]) expect((await store.run((r) => r.messages.findById(m.messageId)))?.createdAt, m.text).to.deep.equal(first.createdAt);
      });

      it('parallel saves and turns, each dated before those called earlier (as requests that read the time, then waited): none is older than the message it follows', async () => {
        const conversation = await store.run((r) => claimed(r, aConversation()));
        const start = Date.parse('2031-01-01T00:00:00.000Z');
        await Promise.all(
          Array.from({ length: 40 }, (_, i) => {
            const at = new Date(start - i);
            if (i % 2 === 0) return stampedAppend(conversation, [say(conversation, `saved ${i}`, { createdAt: at })]);
            const { question, reply } = turnAt(conversation, `asked ${i}`, at);
            return store.run((r) => r.replies.begin({ conversation, userMessage: question, reply, historyLimit: 10 }));
          }),
        );
        expect(await store.run((r) => r.messages.count(conversation.conversationId))).to.equal(60);
        expect(await olderThanParent(conversation)).to.deep.equal([]);
      });
    });

    it('refuses a parent that is no message of the conversation, writing nothing', async () => {
      const { conversation } = await forked();
      const other = await store.run((r) => claimed(r, aConversation(conversation.userId)));
      const elsewhere = say(other, 'elsewhere');
      await append(other, [elsewhere]);
      for (const parentId of [uid('unknown'), elsewhere.messageId]) {
        const orphan = say(conversation, 'orphan', { parentId });
        const result = await append(conversation, [orphan]);
        expect(result.unknownParents).to.deep.equal([orphan.messageId]);
        expect(await store.run((r) => r.messages.findById(orphan.messageId))).to.equal(null);
      }
    });

    it('lists the active branch, the path to a leaf, or every message; with siblings', async () => {
      const { conversation, one, two, three, twoB } = await forked();
      const old = await branch(conversation, { leafId: three.messageId });
      expect(texts(old)).to.deep.equal(['one', 'two', 'three']);
      expect(old.messages.map((m) => m.siblings)).to.deep.equal([
        { count: 1, index: 0, previousId: null, nextId: null },
        { count: 2, index: 0, previousId: null, nextId: twoB.messageId },
        { count: 1, index: 0, previousId: null, nextId: null },
      ]);
      const active = await branch(conversation, { order: 'desc' });
      expect(texts(active)).to.deep.equal(["three'", "two'", 'one']);
      expect(active.messages[1]!.siblings).to.deep.equal({ count: 2, index: 1, previousId: two.messageId, nextId: null });
      const all = await store.run((r) => r.messages.pageOwned(conversation.conversationId, conversation.userId, 'asc', 50, null));
      expect(all.page.messages.map((m) => m.text)).to.deep.equal(['one', 'two', 'three', "two'", "three'"]);
      const unknownLeaf = await branch(conversation, { leafId: uid('nothing') });
      expect([unknownLeaf.leafFound, unknownLeaf.messages]).to.deep.equal([false, []]);
      expect((await branch(conversation, { leafId: one.messageId })).leafFound).to.equal(true);
    });

    it('pages a branch in both orders without overlap or gaps, and a cursor keeps to its branch when the head moves', async () => {
      const conversation = await store.run((r) => claimed(r, aConversation()));
      const trunk = Array.from({ length: 7 }, (_, i) => say(conversation, `t${i}`));
      await append(conversation, trunk);
      const side = Array.from({ length: 4 }, (_, i) => say(conversation, `s${i}`, i === 0 ? { parentId: trunk[2]!.messageId } : {}));
      await append(conversation, side);
      const expected = ['t0', 't1', 't2', 's0', 's1', 's2', 's3'];
      expect(await readAll(conversation, { order: 'asc' }, 3)).to.deep.equal(expected);
      expect(await readAll(conversation, { order: 'desc' }, 2)).to.deep.equal([...expected].reverse());
      for (const order of ['asc', 'desc'] as const) {
        const first = await branch(conversation, { order, limit: 2 });
        // The head moves to the other branch; the cursor still pages the branch it was made for.
        await store.run((r) => r.messages.switchBranch(conversation.conversationId, conversation.userId, trunk[3]!.messageId));
        const rest = await readAll(conversation, { order, after: first.next }, 2);
        const whole = [...texts(first), ...rest];
        expect(whole, order).to.deep.equal(order === 'asc' ? expected : [...expected].reverse());
        await store.run((r) => r.messages.switchBranch(conversation.conversationId, conversation.userId, side[0]!.messageId));
      }
    });

    it('a conversation that never forked pages as one chain, up to any leaf; forking later changes nothing listed', async () => {
      const conversation = await store.run((r) => claimed(r, aConversation()));
      const chain = Array.from({ length: 9 }, (_, i) => say(conversation, `c${i}`));
      await append(conversation, chain.slice(0, 4));
      await append(conversation, chain.slice(4));
      const all = chain.map((m) => m.text);
      expect(await readAll(conversation, { order: 'asc' }, 4)).to.deep.equal(all);
      expect(await readAll(conversation, { order: 'asc', leafId: chain[5]!.messageId }, 2)).to.deep.equal(all.slice(0, 6));
      expect(await readAll(conversation, { order: 'desc', leafId: chain[5]!.messageId }, 4)).to.deep.equal(all.slice(0, 6).reverse());
      // Each message of a chain is the only one of its siblings.
      const only = { count: 1, index: 0, previousId: null, nextId: null };
      for (const order of ['asc', 'desc'] as const) {
        expect((await branch(conversation, { order, limit: 20 })).messages.map((m) => m.siblings), order).to.deep.equal(chain.map(() => only));
      }
      // A fork at c2: the branch to c8 reads the same, the new one its own path.
      const fork = say(conversation, 'fork', { parentId: chain[2]!.messageId });
      await append(conversation, [fork]);
      expect(await readAll(conversation, { order: 'asc', leafId: chain[8]!.messageId }, 4)).to.deep.equal(all);
      expect(await readAll(conversation, { order: 'asc' }, 2)).to.deep.equal(['c0', 'c1', 'c2', 'fork']);
      expect((await branch(conversation, { order: 'asc', limit: 20 })).messages.map((m) => m.siblings)).to.deep.equal([
        only,
        only,
        only,
        { count: 2, index: 1, previousId: chain[3]!.messageId, nextId: null },
      ]);
      expect((await branch(conversation, { order: 'desc', limit: 20, leafId: chain[8]!.messageId })).messages.map((m) => m.siblings)).to.deep.equal(
        [...chain.map(() => only).slice(0, 5), { count: 2, index: 0, previousId: null, nextId: fork.messageId }, only, only, only],
      );
    });

    it('a page goes on after the last message of the page before even when that message was deleted meanwhile: nothing skipped or repeated', async () => {
      // One chain (read in insertion order) and a forked tree (read by walking the path); the page before
      // ends in the middle of the branch, or (ascending, one message a page) at its first message.
      const cases = [
        { order: 'asc', limit: 2 },
        { order: 'asc', limit: 1 },
        { order: 'desc', limit: 2 },
      ] as const;
      for (const shape of ['chain', 'forked'] as const) {
        for (const { order, limit } of cases) {
          const conversation = await store.run((r) => claimed(r, aConversation()));
          const messages = Array.from({ length: 6 }, (_, i) => say(conversation, `m${i}`));
          await append(conversation, messages);
          if (shape === 'forked') await append(conversation, [say(conversation, 'aside', { parentId: messages[1]!.messageId })]);
          const query = { order, leafId: messages[5]!.messageId };
          const first = await branch(conversation, { ...query, limit });
          const anchor = first.messages.at(-1)!.message;
          await store.run((r) => r.messages.deleteOwned(conversation.conversationId, conversation.userId, [anchor.messageId]));
          const rest = await readAll(conversation, { ...query, after: first.next }, 2);
          const kept = messages.map((m) => m.text).filter((t) => t !== anchor.text);
          const read = [...texts(first).filter((t) => t !== anchor.text), ...rest];
          expect(read, `${shape}, ${order}, ${limit} a page`).to.deep.equal(order === 'asc' ? kept : [...kept].reverse());
        }
      }
    });

    it('switchBranch makes the newest message of the subtree the head; another user or message: not found', async () => {
      const { conversation, two, three, twoB, threeB } = await forked();
      const switched = await store.run((r) => r.messages.switchBranch(conversation.conversationId, conversation.userId, two.messageId));
      expect([switched.found, switched.headId]).to.deep.equal([true, three.messageId]);
      expect(texts(await branch(conversation))).to.deep.equal(['one', 'two', 'three']);
      const back = await store.run((r) => r.messages.switchBranch(conversation.conversationId, conversation.userId, twoB.messageId));
      expect(back.headId).to.equal(threeB.messageId);
      expect((await store.run((r) => r.messages.switchBranch(conversation.conversationId, uid('intruder'), two.messageId))).found).to.equal(false);
      expect((await store.run((r) => r.messages.switchBranch(conversation.conversationId, conversation.userId, uid('none')))).found).to.equal(false);
      expect((await branch(conversation)).headId).to.equal(threeB.messageId);
    });

    it('deleting splices: children follow the nearest surviving ancestor, a deleted head moves up its path', async () => {
      const { conversation, one, two, three, twoB, threeB } = await forked();
      const { deleted } = await store.run((r) => r.messages.deleteOwned(conversation.conversationId, conversation.userId, [twoB.messageId, threeB.messageId]));
      expect(deleted).to.equal(2);
      const page = await branch(conversation);
      expect(page.headId).to.equal(one.messageId);
      expect(texts(page)).to.deep.equal(['one']);
      await store.run((r) => r.messages.deleteOwned(conversation.conversationId, conversation.userId, [two.messageId]));
      expect((await store.run((r) => r.messages.findById(three.messageId)))?.parentId).to.equal(one.messageId);
      expect(texts(await branch(conversation, { leafId: three.messageId }))).to.deep.equal(['one', 'three']);
    });

    it('descendants: true deletes whole subtrees and counts them all', async () => {
      const { conversation, one, two } = await forked();
      const { deleted } = await store.run((r) => r.messages.deleteOwned(conversation.conversationId, conversation.userId, [two.messageId], true));
      expect(deleted).to.equal(2);
      expect(texts(await branch(conversation))).to.deep.equal(['one', "two'", "three'"]);
      const all = await store.run((r) => r.messages.deleteOwned(conversation.conversationId, conversation.userId, [one.messageId], true));
      expect(all.deleted).to.equal(3);
      expect((await branch(conversation)).headId).to.equal(null);
      expect(await store.run((r) => r.messages.count(conversation.conversationId))).to.equal(0);
    });

    describe('replies', () => {
      const aReply = (question: Message) =>
        Message.create({
          messageId: uid('reply'),
          conversationId: question.conversationId,
          userId: question.userId,
          role: 'assistant',
          text: '',
          createdAt: tick(),
          metadata: { model: 'm' },
          replyTo: question.messageId,
          parentId: question.messageId,
          status: 'in_progress',
          progressAt: new Date(),
        });
      /** A reply as regenerate gets it: the store sets what it answers and follows. */
      const unplaced = (question: Message) => aReply(question).with({ replyTo: null, parentId: null });
      const answer = (reply: Message, text: string) => store.run((r) => r.replies.finish(finished(reply, text, { finishReason: 'stop', model: 'm', usage: null }), new Date()));

      it("a turn's history is the path above its question, never another branch", async () => {
        const { conversation, one, threeB } = await forked();
        const edit = say(conversation, 'edited two', { parentId: one.messageId });
        const record = await store.run((r) => r.replies.begin({ conversation, userMessage: edit, reply: aReply(edit), historyLimit: 10 }));
        expect(record.opened).to.equal(true);
        expect(record.stored?.parentId).to.equal(one.messageId);
        expect(record.history.map((m) => m.text)).to.deep.equal(['one']);
        const follow = say(conversation, 'after the head');
        const second = await store.run((r) => r.replies.begin({ conversation, userMessage: follow, reply: aReply(follow), historyLimit: 10 }));
        // The head is the reply still in progress: not history; above it, only its own branch.
        expect(second.history.map((m) => m.text)).to.deep.equal(['edited two', 'one']);
        expect(second.history.some((m) => m.messageId === threeB.messageId)).to.equal(false);
      });

      it('a turn with an unknown parent writes nothing', async () => {
        const { conversation } = await forked();
        const orphan = say(conversation, 'orphan', { parentId: uid('none') });
        const record = await store.run((r) => r.replies.begin({ conversation, userMessage: orphan, reply: aReply(orphan), historyLimit: 10 }));
        expect([record.opened, record.unknownParent]).to.deep.equal([false, true]);
        expect(await store.run((r) => r.messages.findById(orphan.messageId))).to.equal(null);
      });

      it('parentIfStored is followed when stored, else the head', async () => {
        const { conversation, one, threeB } = await forked();
        const hinted = say(conversation, 'hinted');
        const a = await store.run((r) => r.replies.begin({ conversation, userMessage: hinted, parentIfStored: one.messageId, reply: aReply(hinted), historyLimit: 10 }));
        expect(a.stored?.parentId).to.equal(one.messageId);
        const unhinted = say(conversation, 'unhinted');
        const reply = aReply(unhinted);
        await store.run((r) => r.replies.finish(finished(a.stored ? aReply(hinted) : reply, 'x', { finishReason: 'stop', model: 'm', usage: null }), new Date()));
        const b = await store.run((r) => r.replies.begin({ conversation, userMessage: unhinted, parentIfStored: uid('not-stored'), reply, historyLimit: 10 }));
        expect(b.stored?.parentId).not.to.equal(threeB.messageId);
        expect(b.stored?.parentId).to.not.equal(null);
      });

      it('regenerate opens a sibling of the earlier replies as the head; refused while one is in progress', async () => {
        const conversation = await store.run((r) => claimed(r, aConversation()));
        const question = say(conversation, 'why?');
        const first = aReply(question);
        await store.run((r) => r.replies.begin({ conversation, userMessage: question, reply: first, historyLimit: 10 }));
        const busy = await store.run((r) => r.replies.regenerate({ conversation, targetId: question.messageId, reply: unplaced(question), historyLimit: 10 }));
        expect(busy.running?.messageId).to.equal(first.messageId);
        expect(busy.opened).to.equal(null);
        await answer(first, 'Because.');
        const again = unplaced(question);
        const record = await store.run((r) => r.replies.regenerate({ conversation, targetId: first.messageId, reply: again, historyLimit: 10 }));
        expect(record.question?.messageId).to.equal(question.messageId);
        expect(record.opened?.toProps()).to.include({ messageId: again.messageId, parentId: question.messageId, replyTo: question.messageId, status: 'in_progress' });
        const busyAgain = await store.run((r) => r.replies.regenerate({ conversation, targetId: question.messageId, reply: unplaced(question), historyLimit: 10 }));
        expect([busyAgain.running?.messageId, busyAgain.opened]).to.deep.equal([again.messageId, null]);
        const page = await branch(conversation);
        expect(page.headId).to.equal(again.messageId);
        expect(page.messages.at(-1)?.siblings).to.deep.equal({ count: 2, index: 1, previousId: first.messageId, nextId: null });
        expect((await store.run((r) => r.messages.findReplyTo(question.messageId)))?.messageId).to.equal(again.messageId);
        const nothing = await store.run((r) => r.replies.regenerate({ conversation, targetId: uid('none'), reply: unplaced(question), historyLimit: 10 }));
        expect([nothing.question, nothing.opened]).to.deep.equal([null, null]);
      });

      it('regenerate of a reply stored without what it answers (saved, imported: no reply_to) answers the user message it follows; one that follows none: nothing', async () => {
        const conversation = await store.run((r) => claimed(r, aConversation()));
        const question = say(conversation, 'saved question');
        const saved = say(conversation, 'saved answer', { role: 'assistant' });
        await append(conversation, [question, saved]);
        expect((await store.run((r) => r.messages.findById(saved.messageId)))?.toProps()).to.include({ parentId: question.messageId, replyTo: null });
        const again = unplaced(question);
        const record = await store.run((r) => r.replies.regenerate({ conversation, targetId: saved.messageId, reply: again, historyLimit: 10 }));
        expect(record.question?.messageId).to.equal(question.messageId);
        expect(record.opened?.toProps()).to.include({ parentId: question.messageId, replyTo: question.messageId });
        expect((await branch(conversation)).messages.at(-1)?.siblings).to.deep.include({ count: 2, index: 1, previousId: saved.messageId });

        const alone = await store.run((r) => claimed(r, aConversation()));
        const first = say(alone, 'an answer first', { role: 'assistant' });
        await append(alone, [first]);
        const none = await store.run((r) => r.replies.regenerate({ conversation: alone, targetId: first.messageId, reply: unplaced(first), historyLimit: 10 }));
        expect([none.question, none.opened]).to.deep.equal([null, null]);
      });

      it('regenerate of a saved reply with system or assistant messages between it and its question answers that question; of a system message: nothing', async () => {
        const conversation = await store.run((r) => claimed(r, aConversation()));
        const question = say(conversation, 'saved question');
        const system = say(conversation, 'be brief', { role: 'system' });
        const part = say(conversation, 'part one', { role: 'assistant' });
        const saved = say(conversation, 'part two', { role: 'assistant' });
        await append(conversation, [question, system, part, saved]);
        const again = unplaced(question);
        const record = await store.run((r) => r.replies.regenerate({ conversation, targetId: saved.messageId, reply: again, historyLimit: 10 }));
        expect(record.question?.messageId).to.equal(question.messageId);
        expect(record.opened?.toProps()).to.include({ parentId: question.messageId, replyTo: question.messageId });
        await answer(record.opened!, 'Again.');
        const bySystem = await store.run((r) => r.replies.regenerate({ conversation, targetId: system.messageId, reply: unplaced(question), historyLimit: 10 }));
        expect([bySystem.question, bySystem.opened]).to.deep.equal([null, null]);
      });

      it('a reply removed before its first piece gives the head back to its question', async () => {
        const conversation = await store.run((r) => claimed(r, aConversation()));
        const question = say(conversation, 'hello?');
        const reply = aReply(question);
        await store.run((r) => r.replies.begin({ conversation, userMessage: question, reply, historyLimit: 10 }));
        await store.run((r) => r.replies.finish(reply.with({ status: 'completed', finishReason: 'cancelled' }), new Date()));
        expect((await branch(conversation)).headId).to.equal(question.messageId);
      });
    });
  });
}
