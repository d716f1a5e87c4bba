import { expect } from 'chai';
import { uid } from '../support/ids.js';
import type { CallResult, TestService } from '../support/service.js';

interface Result {
  message: { message_id: string; text: string; user_id: string; conversation_id: string; status: string };
  conversation_id: string;
  conversation_title: string | null;
  snippet: string;
  highlights: { start: number; end: number }[];
}

/** GET /api/chat/search, written once and run against every store. */
export function searchEndpointSuite(start: () => Promise<TestService>): void {
  let service: TestService;
  before(async () => {
    service = await start();
  });
  after(() => service?.stop());

  const save = async (userId: string, conversationId: string, text: string, extra: Record<string, unknown> = {}) => {
    const res = await service.post('/api/chat/saveMessage', { user_id: userId, conversation_id: conversationId, role: 'user', text, ...extra });
    expect(res.status, res.text).to.equal(201);
    return res.json.message.message_id as string;
  };
  const search = (params: Record<string, string | number>) => service.call('GET', `/api/chat/search?${new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]))}`);
  const results = (res: CallResult): Result[] => res.json.results;
  const highlighted = (r: Result) => r.highlights.map((h) => [...r.snippet].slice(h.start, h.end).join(''));

  it('finds the caller\'s messages in inflected forms, with the conversation, its title, a plain-text snippet and highlights', async () => {
    const user = uid('user');
    const conversation = uid('conv');
    const id = await save(user, conversation, 'We deployed <b>Kubernetes</b> & the deployment went fine.');
    await save(user, conversation, 'Unrelated follow-up.');
    const res = await search({ user_id: user, q: 'deploying' });
    expect(res.status).to.equal(200);
    expect(res.json.status).to.equal('ok');
    expect(res.json.next_cursor).to.equal(null);
    const [result] = results(res);
    expect(result!.message).to.include({ message_id: id, user_id: user, conversation_id: conversation, status: 'completed' });
    expect(result!.conversation_id).to.equal(conversation);
    expect(result!.conversation_title).to.equal('We deployed <b>Kubernetes</b> & the deployment went fine.');
    expect(result!.snippet).to.equal('We deployed <b>Kubernetes</b> & the deployment went fine.');
    expect(highlighted(result!)).to.deep.equal(['deployed', 'deployment']);
  });

  it('finds a misspelling, a phrase, OR, and Chinese by substring', async () => {
    const user = uid('user');
    const conversation = uid('conv');
    const k8s = await save(user, conversation, 'Our Kubernetes cluster is healthy.');
    const zh = await save(user, conversation, '我们讨论了机器学习和搜索引擎的部署。');
    const tea = await save(user, conversation, 'Green tea or black coffee?');
    const ids = async (q: string) => results(await search({ user_id: user, q })).map((r) => r.message.message_id);
    expect(await ids('kubernets')).to.deep.equal([k8s]);
    expect(await ids('"kubernetes cluster"')).to.deep.equal([k8s]);
    expect(await ids('"cluster kubernetes"')).to.deep.equal([]);
    expect(await ids('coffee OR kubernetes')).to.have.members([k8s, tea]);
    expect(await ids('coffee -tea')).to.deep.equal([]);
    const [chinese] = results(await search({ user_id: user, q: '机器学习' }));
    expect(chinese!.message.message_id).to.equal(zh);
    expect(highlighted(chinese!)).to.deep.equal(['机器学习']);
  });

  it("never returns another user's identical text, nor deleted messages", async () => {
    const text = 'The secret launch date is the fifteenth of May.';
    const mine = uid('user');
    const theirs = uid('user');
    await save(theirs, uid('conv'), text);
    const conversation = uid('conv');
    const id = await save(mine, conversation, text);
    expect(results(await search({ user_id: mine, q: 'launch date' })).map((r) => r.message.message_id)).to.deep.equal([id]);
    const deleted = await service.call('DELETE', '/api/chat/deleteMessages', { body: { user_id: mine, conversation_id: conversation, all: true } });
    expect(deleted.json.deleted).to.equal(1);
    for (const q of ['launch', 'lanch date', 'fifteenth']) expect(results(await search({ user_id: mine, q })), q).to.deep.equal([]);
  });

  it('shows at most 200 code points around the match of a long message', async () => {
    const user = uid('user');
    const text = `${'🎉 filler words here. '.repeat(30)}The answer is forty-two. ${'more filler text. '.repeat(30)}`;
    await save(user, uid('conv'), text);
    const [result] = results(await search({ user_id: user, q: 'answer' }));
    expect([...result!.snippet].length).to.be.at.most(200);
    expect(highlighted(result!)).to.deep.equal(['answer']);
    expect(result!.message.text).to.equal(text);
  });

  it('pages with next_cursor, without overlap, for the same query only', async () => {
    const user = uid('user');
    const conversation = uid('conv');
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push(await save(user, conversation, `Invoice ${i} is paid.`));
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res: CallResult = await search({ user_id: user, q: 'invoice', limit: 2, ...(cursor ? { cursor } : {}) });
      expect(res.status).to.equal(200);
      seen.push(...results(res).map((r) => r.message.message_id));
      cursor = res.json.next_cursor;
      pages++;
    } while (cursor !== null && pages < 10);
    expect(pages).to.equal(3);
    expect(seen).to.have.members(ids);
    expect(new Set(seen).size).to.equal(5);
    const first = await search({ user_id: user, q: 'invoice', limit: 2 });
    const other = await search({ user_id: user, q: 'paid', limit: 2, cursor: first.json.next_cursor });
    expect(other.status).to.equal(400);
    expect(other.json.detail).to.match(/^cursor: /);
    // The query's own cursor with a string of its key made unstorable (NUL, a lone surrogate): 400 on every store, never a 500.
    const body = JSON.parse(Buffer.from(first.json.next_cursor, 'base64url').toString('utf8'));
    for (const bad of ['\u0000', 'a\ud800']) {
      const k = [...body.k.slice(0, -1), bad]; // the last part: the message id that breaks ties
      const forged = await search({ user_id: user, q: 'invoice', limit: 2, cursor: Buffer.from(JSON.stringify({ ...body, k })).toString('base64url') });
      expect(forged.status, JSON.stringify(forged.json)).to.equal(400);
      expect(forged.json.detail).to.match(/^cursor: /);
    }
  });

  it('filters by conversation (404 for another user\'s, empty for an unknown one), role and time', async () => {
    const user = uid('user');
    const one = uid('conv');
    const two = uid('conv');
    await save(user, one, 'weather report', { created_at: '2026-01-01T10:00:00.000Z' });
    const later = await save(user, two, 'weather again', { role: 'assistant', created_at: '2026-01-02T10:00:00.000Z' });
    const ids = async (params: Record<string, string>) => results(await search({ user_id: user, q: 'weather', ...params })).map((r) => r.message.message_id);
    expect(await ids({ conversation_id: two })).to.deep.equal([later]);
    expect(await ids({ role: 'assistant' })).to.deep.equal([later]);
    expect(await ids({ from: '2026-01-02T10:00:00.000Z' })).to.deep.equal([later]);
    expect(await ids({ to: '2026-01-01T10:00:00.000Z' })).to.have.length(1);
    expect(await ids({ conversation_id: uid('unknown') })).to.deep.equal([]);
    const foreign = await search({ user_id: uid('user'), q: 'weather', conversation_id: one });
    expect(foreign.status).to.equal(404);
  });

  it('answers a query that cannot match anything with an empty list', async () => {
    for (const q of ['   ', '-everything', '""', 'OR']) {
      const res = await search({ user_id: uid('user'), q });
      expect(res.status, q).to.equal(200);
      expect(res.json.results, q).to.deep.equal([]);
    }
  });

  it('refuses what it cannot read with 400 naming the field', async () => {
    const user = uid('user');
    const cases: [Record<string, string | number>, RegExp][] = [
      [{ q: 'x' }, /^user_id: /],
      [{ user_id: user }, /^q: is required/],
      [{ user_id: user, q: '' }, /^q: /],
      [{ user_id: user, q: 'x'.repeat(257) }, /^q: /],
      [{ user_id: user, q: 'a\u0000b' }, /^q: /],
      [{ user_id: user, q: 'x', limit: 0 }, /^limit: /],
      [{ user_id: user, q: 'x', limit: 101 }, /^limit: /],
      [{ user_id: user, q: 'x', role: 'robot' }, /^role: /],
      [{ user_id: user, q: 'x', from: 'yesterday' }, /^from: /],
      [{ user_id: user, q: 'x', from: '2026-01-02T00:00:00Z', to: '2026-01-01T00:00:00Z' }, /^to: /],
      [{ user_id: user, q: 'x', cursor: 'nonsense' }, /^cursor: /],
    ];
    for (const [params, detail] of cases) {
      const res = await search(params);
      expect(res.status, JSON.stringify(params)).to.equal(400);
      expect(res.json.detail, JSON.stringify(params)).to.match(detail);
    }
    expect((await search({ user_id: user, q: '😀'.repeat(256) })).status).to.equal(200);
  });
}
