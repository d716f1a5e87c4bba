import type { UIMessageChunk } from 'ai';
import { expect } from 'chai';
import { PlainChat, textOf, transportFor } from '../../support/ai-sdk-chat.js';
import { documentedFetch } from '../../support/documented-responses.js';
import { uid } from '../../support/ids.js';
import { eventually } from '../../support/reply-client.js';
import { someone, type SuiteContext } from './context.js';

/** GET /v1/chat/stream/{conversation_id}/stream, read by the AI SDK's own transport and Chat. */
export function aiSdkResumeTests(ctx: SuiteContext): void {
  const chatFor = (userId: string, conversationId: string) =>
    new PlainChat(`${ctx.service.url}/v1/chat/stream`, userId, conversationId);

  it("204 when no reply of the conversation is in progress: the SDK's Chat resumes nothing", async () => {
    const who = someone();
    const idle = await documentedFetch(`${ctx.service.url}/v1/chat/stream/${who.conversation_id}/stream?user_id=${who.user_id}`);
    expect(idle.status).to.equal(204);
    const first = await ctx.replies.start({ ...who, text: 'hello' });
    const call = await ctx.model.nextCall();
    call.say('Hi.');
    call.finish();
    await first.end();
    const chat = chatFor(who.user_id, who.conversation_id);
    await chat.resumeStream();
    expect(chat.messages).to.deep.equal([]);
    expect(chat.status).to.equal('ready');
  });

  it("a reply in progress: the SDK's own transport reads its UI message stream from the beginning to the end", async () => {
    // A conversation id with characters that need escaping in a path.
    const who = { ...someone(), conversation_id: `chat/${uid('c')} #1? 💬` };
    const original = await ctx.replies.start({ ...who, text: 'resume me' });
    const call = await ctx.model.nextCall();
    call.say('Before 🌅 the reload. ');
    await original.until('the reload. ');
    const chat = chatFor(who.user_id, who.conversation_id);
    const chunks: UIMessageChunk[] = [];
    const transport = transportFor(`${ctx.service.url}/v1/chat/stream`, who.user_id);
    const reconnected = await transport.reconnectToStream({ chatId: who.conversation_id });
    expect(reconnected).to.not.equal(null);
    const reading = (async () => {
      for await (const chunk of reconnected!) chunks.push(chunk);
    })();
    const resuming = chat.resumeStream();
    // Both readers hold the reply's beginning before it ends (else theirs would be a 204).
    await eventually(async () => (chunks.some((c) => c.type === 'text-delta') ? true : undefined), 'the first text chunk');
    await eventually(async () => (textOf(chat.messages[0]).startsWith('Before') ? true : undefined), "the chat's first text");
    call.say('After ', 'it.');
    call.finish();
    await Promise.all([resuming, reading, original.end()]);
    const messageId = original.events[0]!.json.message_id;
    expect(chat.error).to.equal(undefined);
    expect(chat.messages).to.have.length(1);
    expect(chat.messages[0]).to.deep.include({ id: messageId, role: 'assistant' });
    expect(textOf(chat.messages[0])).to.equal('Before 🌅 the reload. After it.');
    expect(chat.messages[0]!.metadata).to.deep.include({ conversation_id: who.conversation_id, message_id: messageId, finish_reason: 'stop' });
    const types = chunks.map((c) => c.type);
    expect(types.slice(0, 2)).to.deep.equal(['start', 'text-start']);
    expect(types.slice(-2)).to.deep.equal(['text-end', 'finish']);
    expect(chunks.map((c) => (c.type === 'text-delta' ? c.delta : '')).join('')).to.equal('Before 🌅 the reload. After it.');
  });

  it("404 for another user's conversation", async () => {
    const who = someone();
    const first = await ctx.replies.start({ ...who, text: 'private' });
    const call = await ctx.model.nextCall();
    call.say('Secret.');
    const intruder = await documentedFetch(`${ctx.service.url}/v1/chat/stream/${who.conversation_id}/stream?user_id=${uid('intruder')}`);
    expect(intruder.status).to.equal(404);
    call.finish();
    await first.end();
  });
}
