import { expect } from 'chai';
import type { ChatChunk, ChatModel, ChatRequest } from '../../src/application/ports/chat-model.js';
import type { Persona } from '../../src/domain/persona.js';
import { aPersona } from '../support/builders.js';

export interface ChatModelSubject {
  /** A model that streams with a short pause between pieces, so a test can abort mid-reply. */
  model: ChatModel;
  /** Whether the model answers `complete` at once, in this process (ChatModel.immediate): the offline one does, a model over the network never. */
  immediate: boolean;
  close(): Promise<void>;
}

export type MakeChatModel = () => Promise<ChatModelSubject>;

const persona: Persona = aPersona({ description: 'A warm, curious assistant.', speakingStyle: 'Warm and concise.' });

const request = (text = 'I would like to talk about the weather today'): ChatRequest => ({
  persona,
  history: [
    { role: 'user', text: 'Hello there' },
    { role: 'assistant', text: 'Hi! How can I help?' },
  ],
  text,
});

/** Runs the stream to its end; returns the chunks seen and the error it ended with, if any. */
async function drain(stream: AsyncIterable<ChatChunk>, onChunk: (chunk: ChatChunk) => void = () => {}) {
  const chunks: ChatChunk[] = [];
  try {
    for await (const chunk of stream) {
      chunks.push(chunk);
      onChunk(chunk);
    }
    return { chunks, error: null as unknown };
  } catch (error) {
    return { chunks, error };
  }
}

/** What every ChatModel adapter promises, plain and streamed. */
export function chatModelContract(make: MakeChatModel): void {
  describe('ChatModel contract', () => {
    let subject: ChatModelSubject;
    beforeEach(async () => {
      subject = await make();
    });
    afterEach(() => subject.close());

    it('complete() returns a non-empty reply, why it stopped and which model made it', async () => {
      const reply = await subject.model.complete(request());
      expect(reply.text.trim()).to.not.equal('');
      expect(reply.finishReason).to.be.a('string').and.not.equal('');
      expect(reply.model).to.be.a('string').and.not.equal('');
      if (reply.usage) expect(reply.usage.totalTokens).to.equal(reply.usage.promptTokens + reply.usage.completionTokens);
    });

    it('says whether it answers at once (immediate), and one that does answers complete() before the event loop turns', async () => {
      expect(subject.model.immediate === true).to.equal(subject.immediate);
      let turned = false;
      const immediate = setImmediate(() => (turned = true));
      const reply = await subject.model.complete(request());
      clearImmediate(immediate);
      expect(reply.text.trim()).to.not.equal('');
      // A model over the network waits on its socket for several turns of the loop.
      expect(turned).to.equal(!subject.immediate);
    });

    it('stream() yields deltas that concatenate to the full reply, then exactly one finish', async () => {
      const whole = await subject.model.complete(request());
      const { chunks, error } = await drain(subject.model.stream(request()));
      expect(error).to.equal(null);
      const deltas = chunks.filter((c) => c.type === 'delta');
      expect(deltas.length).to.be.greaterThan(1);
      expect(deltas.map((c) => c.text).join('')).to.equal(whole.text);
      expect(chunks.filter((c) => c.type === 'finish')).to.have.length(1);
      const finish = chunks.at(-1)!;
      expect(finish).to.include({ type: 'finish', finishReason: whole.finishReason });
      expect(finish.type === 'finish' && finish.model).to.be.a('string').and.not.equal('');
    });

    it('an abort mid-stream ends the stream promptly with the abort, and no finish', async () => {
      const controller = new AbortController();
      let abortedAt = 0;
      const { chunks, error } = await drain(subject.model.stream(request(), controller.signal), () => {
        if (abortedAt === 0) {
          abortedAt = Date.now();
          controller.abort();
        }
      });
      expect(Date.now() - abortedAt).to.be.below(500);
      expect(error).to.have.property('name', 'AbortError');
      expect(chunks.length).to.be.at.least(1);
      expect(chunks.some((c) => c.type === 'finish')).to.equal(false);
    });

    it('a signal aborted beforehand rejects at once, yielding nothing', async () => {
      const complete = await subject.model.complete(request(), AbortSignal.abort()).then(
        () => null,
        (error: unknown) => error,
      );
      expect(complete).to.have.property('name', 'AbortError');
      const { chunks, error } = await drain(subject.model.stream(request(), AbortSignal.abort()));
      expect(error).to.have.property('name', 'AbortError');
      expect(chunks).to.deep.equal([]);
    });
  });
}
