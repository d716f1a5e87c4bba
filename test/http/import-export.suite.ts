import { expect } from 'chai';
import { uid } from '../support/ids.js';
import { ARABIC, asChatGptFile, CHATGPT_EXPECTED, chatGptConversation, CLAUDE_EXPECTED, claudeConversation, RTL } from '../support/import-fixtures.js';
import { startTestService, type TestService } from '../support/service.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Export and import (docs/import-export.md), against one store. */
export function importExportSuite(start: () => Promise<TestService>): void {
  let service: TestService;
  before(async () => {
    service = await start();
  });
  after(() => service?.stop());

  const importFile = (userId: string, raw: string, headers: Record<string, string> = {}) =>
    service.call('POST', `/api/users/${encodeURIComponent(userId)}/import`, { raw, headers: { 'content-type': 'application/json', ...headers } });
  const imported = async (userId: string, raw: string) => {
    const res = await importFile(userId, raw);
    expect(res.status, res.text).to.equal(200);
    return res.json as Json;
  };
  const exportOne = async (userId: string, conversationId: string, format = 'json') => {
    const res = await service.call('GET', `/api/chat/conversations/${encodeURIComponent(conversationId)}/export?user_id=${encodeURIComponent(userId)}&format=${format}`);
    expect(res.status, res.text).to.equal(200);
    return res;
  };
  const exportUser = async (userId: string, format = 'ndjson') => {
    const res = await service.call('GET', `/api/users/${encodeURIComponent(userId)}/export?format=${format}`);
    expect(res.status, res.text).to.equal(200);
    return res;
  };
  const list = async (userId: string, archived = false) =>
    (await service.call('GET', `/api/chat/conversations?user_id=${encodeURIComponent(userId)}&archived=${archived}&limit=100`)).json.conversations as Json[];
  /** The active branch, read from the json export: from the head up through parent_id. */
  const activeBranch = (file: Json) => {
    const byId = new Map((file.messages as Json[]).map((m) => [m.message_id, m]));
    const path: Json[] = [];
    for (let id = file.conversation.head_id; id; id = byId.get(id)?.parent_id) path.unshift(byId.get(id)!);
    return path;
  };

  it("imports ChatGPT's conversations.json: the tree, the head, placeholders, titles and times; again: nothing", async () => {
    const user = uid('gpt');
    const file = asChatGptFile([chatGptConversation(1), chatGptConversation(2)]);
    const first = await imported(user, file);
    expect(first).to.deep.equal({ status: 'ok', conversations: { created: 2, skipped: 0 }, messages: { created: 14, skipped: 0 }, errors: [] });
    const conversations = await list(user);
    expect(conversations.map((c) => c.title).sort()).to.deep.equal(['Pictures and code 1 🐍', 'Pictures and code 2 🐍']);
    const one = conversations.find((c) => c.title === 'Pictures and code 1 🐍')!;
    expect(one.created_at).to.equal('2024-03-02T10:00:00.250Z');
    expect(one.message_count).to.equal(CHATGPT_EXPECTED.messages);
    const exported = (await exportOne(user, one.conversation_id)).json as Json;
    const active = activeBranch(exported);
    expect(active.map((m) => m.text)).to.deep.equal(CHATGPT_EXPECTED.activeTexts);
    expect(active.map((m) => m.role)).to.deep.equal(CHATGPT_EXPECTED.active);
    expect(active[0]!.created_at).to.equal('2024-03-02T10:01:00.250Z');
    expect(active[2]!.metadata.imported.parts).to.deep.equal(['image_asset_pointer']);
    expect(active[4]!.metadata.imported).to.include({ role: 'tool', name: 'python' });
    const siblings = (exported.messages as Json[]).filter((m) => m.parent_id === active[0]!.message_id);
    expect(siblings.map((m) => m.text)).to.deep.equal(['Hi there!', `Another answer 🎉 ${ARABIC}`]);
    expect(JSON.stringify(exported)).not.to.contain('is_visually_hidden');

    const again = await imported(user, file);
    expect(again).to.deep.equal({ status: 'ok', conversations: { created: 0, skipped: 2 }, messages: { created: 0, skipped: 14 }, errors: [] });
    expect(await list(user)).to.have.length(2);
  });

  it('two users importing one file do not collide; a split conversations-NNN.json imports the same way', async () => {
    const [alice, bob] = [uid('alice'), uid('bob')];
    const part = asChatGptFile([chatGptConversation(3)]);
    const a = await imported(alice, part);
    const b = await imported(bob, part);
    expect(a.conversations.created).to.equal(1);
    expect(b.conversations.created).to.equal(1);
    const [mine, theirs] = [(await list(alice))[0]!, (await list(bob))[0]!];
    expect(mine.conversation_id).not.to.equal(theirs.conversation_id);
    expect(mine.title).to.equal(theirs.title);
  });

  it("imports Claude's conversations.json with its branches and files", async () => {
    const user = uid('claude');
    const report = await imported(user, JSON.stringify([claudeConversation(1)]));
    expect(report).to.deep.equal({ status: 'ok', conversations: { created: 1, skipped: 0 }, messages: { created: CLAUDE_EXPECTED.messages, skipped: 0 }, errors: [] });
    const [conversation] = await list(user);
    expect(conversation!.title).to.equal('Claude chat 1 ✨');
    const exported = (await exportOne(user, conversation!.conversation_id)).json as Json;
    expect(activeBranch(exported).map((m) => m.text)).to.deep.equal(CLAUDE_EXPECTED.activeTexts);
    expect((exported.messages as Json[]).map((m) => m.text)).to.include(`Or this ${RTL}`);
    expect(activeBranch(exported)[2]!.metadata.imported.files).to.deep.equal(['photo.png']);
    expect((await imported(user, JSON.stringify([claudeConversation(1)]))).messages).to.deep.equal({ created: 0, skipped: 5 });
  });

  it('a NUL or a lone surrogate in what an import keeps as metadata (a file name, a name) becomes U+FFFD, as in texts: the conversation is not refused', async () => {
    const user = uid('claude');
    const conversation = claudeConversation(2);
    const raw = JSON.stringify([conversation]).replace('photo.png', 'notes-caf\\udce9\\u0000.txt');
    const report = await imported(user, raw);
    expect(report.errors).to.deep.equal([]);
    expect(report.conversations).to.deep.equal({ created: 1, skipped: 0 });
    const [listed] = await list(user);
    const exported = (await exportOne(user, listed!.conversation_id)).json as Json;
    expect(activeBranch(exported)[2]!.metadata.imported.files).to.deep.equal(['notes-caf\uFFFD\uFFFD.txt']);
  });

  it('a message id given twice in one conversation of a file: the first is kept, the other counted as skipped (it was dropped unreported)', async () => {
    const user = uid('dup');
    const conversationId = uid('conv');
    const message = (id: string, text: string, parent: string | null, second: number) => ({ message_id: id, role: 'user', text, created_at: `2024-05-01T10:00:0${second}.000Z`, metadata: {}, parent_id: parent });
    const line = {
      conversation: { conversation_id: conversationId, title: 'dup', title_source: 'user', created_at: '2024-05-01T10:00:00.000Z', last_message_at: '2024-05-01T10:00:03.000Z', pinned: false, archived: false, head_id: null },
      messages: [message('d1', 'first d1', null, 0), message('d2', 'child', 'd1', 1), message('d1', 'second d1', 'd2', 2)],
    };
    const res = await importFile(user, `${JSON.stringify(line)}\n`, { 'content-type': 'application/x-ndjson' });
    expect(res.status, res.text).to.equal(200);
    expect(res.json.messages).to.deep.equal({ created: 2, skipped: 1 });
    const exported = (await exportOne(user, conversationId)).json as Json;
    expect((exported.messages as Json[]).map((m) => m.text)).to.deep.equal(['first d1', 'child']);
  });

  it("reports a conversation it cannot read and imports the rest; a body of no format is 400 and stores nothing", async () => {
    const user = uid('bad');
    const broken = { ...chatGptConversation(4), mapping: 'nope' };
    const farOff = { ...chatGptConversation(13), create_time: 1e15, mapping: {} };
    const report = await imported(user, JSON.stringify([chatGptConversation(5), broken, { ...chatGptConversation(6), create_time: null, mapping: {} }, farOff]));
    expect(report.conversations).to.deep.equal({ created: 1, skipped: 0 });
    expect(report.errors).to.have.length(3);
    expect(report.errors[0].conversation).to.equal(broken.conversation_id);
    for (const body of ['', '   ', 'hello', '{"a": 1}', '[1, 2]', '[{"title": "x"}]', '{"conversation": 1']) {
      const res = await importFile(user, body);
      expect(res.status, body).to.equal(400);
      expect(res.json.status).to.equal('error');
    }
    expect(await list(user)).to.have.length(1);
    const truncated = asChatGptFile([chatGptConversation(14), chatGptConversation(15)]).slice(0, -200);
    const cut = await imported(user, truncated);
    expect(cut.conversations.created, 'what came before the break is kept').to.equal(1);
    expect(cut.errors.at(-1).detail).to.match(/^body: is not valid JSON/);
    const badLine = await imported(user, `${JSON.stringify({ conversation: { conversation_id: uid('c'), created_at: '2024-01-01T00:00:00Z' }, messages: [] })}\n{oops\n`);
    expect(badLine.conversations.created).to.equal(1);
    expect(badLine.errors).to.deep.equal([{ conversation: null, detail: 'conversation 2: the line is not valid JSON' }]);
    expect(await list(user)).to.have.length(3);
    const lines = await exportUser(user);
    expect(lines.text.trim().split('\n')).to.have.length(3);
  });

  it('the export of a user without conversations, in each format, imports as nothing (200, zero counts); an empty body said to be JSON is still 400', async () => {
    const user = uid('empty');
    const nothing = { status: 'ok', conversations: { created: 0, skipped: 0 }, messages: { created: 0, skipped: 0 }, errors: [] };
    for (const format of ['ndjson', 'chatgpt']) {
      const file = await exportUser(user, format);
      // Sent back as the export's own type, or as a file of no particular type.
      for (const type of [file.headers.get('content-type')!, 'application/octet-stream']) {
        const res = await service.call('POST', `/api/users/${encodeURIComponent(user)}/import`, { raw: file.text, headers: { 'content-type': type } });
        expect([res.status, res.json], `${format} (${JSON.stringify(file.text)}) as ${type}`).to.deep.equal([200, nothing]);
      }
    }
    // ChatGPT's and Claude's files are JSON, never empty.
    for (const type of ['application/json', 'application/json; charset=utf-8', 'application/vnd.example+json']) {
      const res = await service.call('POST', `/api/users/${encodeURIComponent(user)}/import`, { raw: '\n', headers: { 'content-type': type } });
      expect([res.status, res.json.detail], type).to.deep.equal([400, 'body: is empty']);
    }
    expect(await list(user)).to.deep.equal([]);
  });

  it('a file whose parents form a loop (no tree) loses none of its messages: the earliest of the loop starts the tree', async () => {
    const user = uid('loop');
    const conversationId = uid('c');
    const at = (minute: number) => `2024-01-01T00:0${minute}:00.000Z`;
    const message = (id: string, parent: string | null, minute: number) => ({ message_id: id, parent_id: parent, role: minute % 2 ? 'assistant' : 'user', text: `text ${id}`, created_at: at(minute), metadata: {} });
    const line = { conversation: { conversation_id: conversationId, created_at: at(0) }, messages: [message('b', 'a', 2), message('a', 'c', 1), message('c', 'b', 3), message('d', 'c', 4)] };
    const report = await imported(user, JSON.stringify(line));
    expect(report).to.deep.include({ conversations: { created: 1, skipped: 0 }, errors: [] });
    expect(report.messages.created).to.equal(4);
    const file = (await exportOne(user, conversationId)).json as Json;
    const parents = Object.fromEntries((file.messages as Json[]).map((m) => [m.text.slice(5), m.parent_id === null ? null : (file.messages as Json[]).find((p) => p.message_id === m.parent_id)!.text.slice(5)]));
    expect(parents).to.deep.equal({ a: null, b: 'a', c: 'b', d: 'c' });
    // ChatGPT's shape: two nodes each the other's parent, beside a root.
    const chatgpt = chatGptConversation(21);
    const mapping = chatgpt.mapping as Json;
    const node = (id: string, parent: string) => ({ id, parent, children: [], message: { id, author: { role: 'user' }, create_time: 1_700_000_000, content: { content_type: 'text', parts: [`looped ${id}`] } } });
    const plain = await imported(uid('plain'), JSON.stringify([chatgpt]));
    const looped = await imported(user, JSON.stringify([{ ...chatgpt, mapping: { ...mapping, x1: node('x1', 'x2'), x2: node('x2', 'x1') } }]));
    expect(looped.errors).to.deep.equal([]);
    expect(looped.messages.created).to.equal(plain.messages.created + 2);
    const exported = (await exportUser(user)).text;
    expect(exported).to.include('looped x1').and.to.include('looped x2');
  });

  it('a body sent as another type than JSON, ndjson or a file (a form, text, an image, none) is 415 and stores nothing; each of those types imports', async () => {
    const user = uid('types');
    const file = JSON.stringify([chatGptConversation(21)]);
    for (const type of ['text/plain', 'image/png', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await importFile(user, file, { 'content-type': type });
      expect([res.status, res.json.status], type).to.deep.equal([415, 'error']);
      expect(res.json.detail).to.match(/^Content-Type must be /);
    }
    const untyped = await service.call('POST', `/api/users/${user}/import`, { raw: new TextEncoder().encode(file) }); // bytes: fetch sends no Content-Type
    expect(untyped.status, 'no Content-Type').to.equal(415);
    expect(await list(user)).to.have.length(0);
    for (const type of ['application/json; charset=utf-8', 'application/octet-stream', 'application/x-ndjson', 'application/vnd.chatgpt+json']) {
      const res = await importFile(uid('typed'), file, { 'content-type': type });
      expect([res.status, res.json.conversations?.created], type).to.deep.equal([200, 1]);
    }
  });

  it('refuses a body over IMPORT_MAX_BYTES with 413', async () => {
    const small = await startTestService({ IMPORT_MAX_BYTES: '2048' });
    try {
      const res = await small.call('POST', `/api/users/${uid('u')}/import`, { raw: asChatGptFile([chatGptConversation(7), chatGptConversation(8)]), headers: { 'content-type': 'application/json' } });
      expect(res.status).to.equal(413);
    } finally {
      await small.stop();
    }
  });

  it("an ndjson export re-imported after the user's erasure gives back the same conversations, messages, tree, titles and times", async () => {
    const user = uid('round');
    await imported(user, asChatGptFile([chatGptConversation(9), chatGptConversation(10)]));
    await imported(user, JSON.stringify([claudeConversation(2)]));
    const chat = await service.post('/v1/chat', { user_id: user, text: 'A conversation of this service' });
    await service.call('PATCH', `/api/chat/conversations/${encodeURIComponent(chat.json.conversation_id)}`, { body: { user_id: user, title: 'Renamed', pinned: true } });
    const archived = (await list(user)).find((c) => c.title === 'Claude chat 2 ✨')!;
    await service.call('PATCH', `/api/chat/conversations/${encodeURIComponent(archived.conversation_id)}`, { body: { user_id: user, archived: true } });
    await service.post('/v1/chat', { user_id: user, text: 'temporary', temporary: true });
    const before = await exportUser(user);
    expect(before.headers.get('content-type')).to.match(/^application\/x-ndjson/);
    expect(before.headers.get('content-disposition')).to.match(/^attachment/);
    const lines = before.text.trim().split('\n');
    expect(lines, 'temporary conversations are never exported').to.have.length(4);

    expect((await service.call('DELETE', `/api/users/${encodeURIComponent(user)}`)).status).to.equal(200);
    expect(await list(user)).to.have.length(0);
    const report = await imported(user, before.text);
    expect(report.conversations).to.deep.equal({ created: 4, skipped: 0 });
    const after = await exportUser(user);
    const sorted = (text: string) => text.trim().split('\n').map((line) => JSON.parse(line) as Json).sort((a, b) => a.conversation.conversation_id.localeCompare(b.conversation.conversation_id));
    expect(sorted(after.text)).to.deep.equal(sorted(before.text));
    expect((await imported(user, before.text)).conversations).to.deep.equal({ created: 0, skipped: 4 });
    const other = uid('other');
    const theirs = await imported(other, before.text);
    expect(theirs.conversations, "another user's import of the file gets ids of its own").to.deep.equal({ created: 4, skipped: 0 });
    expect((await list(other)).map((c) => c.conversation_id)).not.to.include(chat.json.conversation_id);
  });

  it('exports one conversation as json or markdown, as an attachment; another user: 404', async () => {
    const user = uid('md');
    await imported(user, asChatGptFile([chatGptConversation(11)]));
    const [conversation] = await list(user);
    const md = await exportOne(user, conversation!.conversation_id, 'markdown');
    expect(md.headers.get('content-type')).to.match(/^text\/markdown/);
    expect(md.headers.get('content-disposition')).to.match(/^attachment; filename="conversation-.*\.md"/);
    expect(md.text).to.match(/^# Pictures and code 11 🐍/);
    expect(md.text).to.contain('It prints 1.');
    expect(md.text, 'only the active branch').not.to.contain('Another answer');
    const json = await exportOne(user, conversation!.conversation_id);
    expect(json.headers.get('content-disposition')).to.match(/\.json"$/);
    expect(json.json.messages).to.have.length(7);
    expect((await service.call('GET', `/api/chat/conversations/${encodeURIComponent(conversation!.conversation_id)}/export?user_id=${uid('x')}`)).status).to.equal(404);
    expect((await service.call('GET', `/api/chat/conversations/${encodeURIComponent(conversation!.conversation_id)}/export?user_id=${user}&format=pdf`)).status).to.equal(400);
  });

  it("exports a user's conversations in ChatGPT's shape, which imports back as the same trees", async () => {
    const user = uid('shape');
    await imported(user, asChatGptFile([chatGptConversation(12)]));
    const res = await exportUser(user, 'chatgpt');
    const file = JSON.parse(res.text) as Json[];
    expect(file).to.have.length(1);
    const conversation = file[0]!;
    expect(conversation.title).to.equal('Pictures and code 12 🐍');
    const head = conversation.mapping[conversation.current_node];
    expect(head.message.content.parts).to.deep.equal(['It prints 1.']);
    const root = Object.values(conversation.mapping as Record<string, Json>).find((n) => n.parent === null)!;
    expect(root.message).to.equal(null);
    const other = uid('shape-copy');
    expect((await imported(other, res.text)).messages).to.deep.equal({ created: 7, skipped: 0 });
    const [copy] = await list(other);
    const copied = activeBranch((await exportOne(other, copy!.conversation_id)).json as Json);
    expect(copied.map((m) => m.text)).to.deep.equal(CHATGPT_EXPECTED.activeTexts);
    expect((await exportUser(uid('nobody'), 'chatgpt')).text.replace(/\s/g, '')).to.equal('[]');
  });

  it("a message whose id is ChatGPT's root id does not replace the root in ChatGPT's shape: the tree imports back whole", async () => {
    const user = uid('root-id');
    const conversationId = uid('c');
    for (const [id, role] of [['client-created-root', 'user'], ['client-created-root-1', 'assistant'], ['after', 'user']] as const) {
      const res = await service.post('/api/chat/saveMessage', { user_id: user, conversation_id: conversationId, message_id: id, role, text: `text of ${id}` });
      expect(res.status, res.text).to.equal(201);
    }
    const [conversation] = JSON.parse((await exportUser(user, 'chatgpt')).text) as Json[];
    const roots = Object.values(conversation!.mapping as Record<string, Json>).filter((n) => n.parent === null);
    expect(roots.map((n) => [n.id, n.message])).to.deep.equal([['client-created-root-2', null]]);
    expect(conversation!.mapping['client-created-root'].message.content.parts).to.deep.equal(['text of client-created-root']);
    const other = uid('root-copy');
    expect((await imported(other, JSON.stringify([conversation]))).messages).to.deep.equal({ created: 3, skipped: 0 });
    const [copy] = await list(other);
    expect(activeBranch((await exportOne(other, copy!.conversation_id)).json as Json).map((m) => m.text)).to.deep.equal([
      'text of client-created-root',
      'text of client-created-root-1',
      'text of after',
    ]);
  });
}
