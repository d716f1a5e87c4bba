import { expect } from 'chai';
import { LruSpeechCache } from '../../../src/adapters/tts/cache/lru-speech-cache.js';

describe('LruSpeechCache', () => {
  const bytes = (n: number) => new Uint8Array(n);

  it('keeps at most maxBytes, forgetting the least recently used first', async () => {
    const cache = new LruSpeechCache(1000);
    await cache.set('a', bytes(400));
    await cache.set('b', bytes(400));
    await cache.get('a'); // a is now more recent than b
    await cache.set('c', bytes(400));
    expect(await cache.get('b')).to.equal(null);
    expect((await cache.get('a'))?.length).to.equal(400);
    expect((await cache.get('c'))?.length).to.equal(400);
    expect(cache.size).to.equal(800);
  });

  it('does not keep a file larger than the whole cache', async () => {
    const cache = new LruSpeechCache(100);
    await cache.set('big', bytes(101));
    expect(await cache.get('big')).to.equal(null);
  });

  it('maxBytes 0 keeps nothing', async () => {
    const cache = new LruSpeechCache(0);
    await cache.set('a', bytes(1));
    expect(await cache.get('a')).to.equal(null);
  });
});
