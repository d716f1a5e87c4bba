import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { STATIC_CONTENT_SECURITY_POLICY } from '../../src/adapters/http/middleware/static-files.js';
import { asChatGptFile, chatGptConversation } from '../support/import-fixtures.js';
import { startTestService, type TestService } from '../support/service.js';
import { makeCertificate } from '../support/tls-clients.js';
import { openChromium, type BrowserPage } from './chromium.js';

/**
 * The demo page (public/) in a real browser: Debian's Chromium driven by playwright-core
 * (chromium.ts). Without Chromium the browser suites are skipped with a message, except under
 * CI, where they fail.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const ARTIFACTS = join(ROOT, 'test-artifacts');

const API_CSP = "default-src 'none'; frame-ancestors 'none'";

interface StoredMessage {
  message_id: string;
  role: string;
  text: string;
}

describe('demo page: static files', () => {
  let service: TestService;
  before(async () => {
    service = await startTestService();
  });
  after(() => service?.stop());

  it('serves the page, its script and its style with their types and the page CSP', async () => {
    const expected: [string, RegExp, string][] = [
      ['/', /^text\/html; charset=utf-8$/, '<!doctype html>'],
      ['/index.html', /^text\/html; charset=utf-8$/, '<!doctype html>'],
      ['/app.js', /^(text|application)\/javascript; charset=utf-8$/, 'import'],
      ['/sse.js', /^(text|application)\/javascript; charset=utf-8$/, 'export'],
      ['/style.css', /^text\/css; charset=utf-8$/, ':root'],
    ];
    for (const [path, type, start] of expected) {
      const res = await service.call('GET', path);
      expect(res.status, path).to.equal(200);
      expect(res.headers.get('content-type'), path).to.match(type);
      expect(res.headers.get('content-security-policy'), path).to.equal(STATIC_CONTENT_SECURITY_POLICY);
      expect(res.headers.get('x-content-type-options'), path).to.equal('nosniff');
      expect(res.headers.get('x-request-id'), path).to.be.a('string');
      expect(res.text, path).to.include(start);
    }
    const head = await service.call('HEAD', '/');
    expect(head.status).to.equal(200);
    expect(head.text).to.equal('');
  });

  it('leaves the API alone: its headers, the JSON 404, the 405', async () => {
    const health = await service.call('GET', '/v1/health');
    expect(health.status).to.equal(200);
    expect(health.headers.get('content-security-policy')).to.equal(API_CSP);
    for (const path of ['/nope', '/api/nope', '/../package.json', '/%2e%2e/package.json', '/.gitignore', '/public/index.html', '/%E0%A4%A']) {
      const res = await service.call('GET', path);
      expect(res.status, path).to.equal(404);
      expect(res.headers.get('content-type'), path).to.match(/^application\/json/);
      expect(res.headers.get('content-security-policy'), path).to.equal(API_CSP);
      expect(res.json.status, path).to.equal('error');
      expect(res.json.detail, path).to.be.a('string').and.not.equal('');
    }
    const wrongMethod = await service.call('GET', '/api/chat/saveMessage');
    expect(wrongMethod.status).to.equal(405);
    expect(wrongMethod.headers.get('allow')).to.equal('POST');
    // The page's path is a known path: another method is told what it allows (issue 11), as on the API.
    const postToPage = await service.call('POST', '/', { body: {} });
    expect(postToPage.status).to.equal(405);
    expect(postToPage.headers.get('allow')).to.equal('GET, HEAD');
    expect(postToPage.headers.get('content-security-policy')).to.equal(API_CSP);
    expect(postToPage.json.status).to.equal('error');
  });
});

/** The whole page over plain HTTP, and again over HTTPS (a self-signed certificate; HTTP/2 by ALPN). */
const demoInChromium = (scheme: 'http' | 'https') => function (this: Mocha.Suite) {
  this.timeout(30_000);

  let service: TestService;
  let browser: BrowserPage | undefined;
  let page: Page;
  let waitUntil: BrowserPage['waitUntil'];
  const userId = `demo-${Date.now().toString(36)}`;

  before(async function () {
    const certificates = scheme === 'https' ? mkdtempSync(join(tmpdir(), 'demo-tls-')) : undefined;
    const tls = certificates ? makeCertificate(certificates, 'demo') : undefined;
    service = await startTestService({ OFFLINE_STREAM_DELAY_MS: '20', ...(tls ? { TLS_CERT_FILE: tls.certFile, TLS_KEY_FILE: tls.keyFile } : {}) });
    browser = await openChromium(this, [], { ignoreHTTPSErrors: scheme === 'https' });
    ({ page, waitUntil } = browser);
    page.on('requestfailed', (request) => {
      if (/\/v1\/chat\/stream/.test(request.url())) failedStreams.push(`${request.method()} ${new URL(request.url()).pathname}: ${request.failure()?.errorText}`);
    });
  });
  /** Reply streams the browser reports as failed: the page cancelled them after their `done`, say. */
  const failedStreams: string[] = [];

  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  const loadMessages = async (conversationId: string): Promise<StoredMessage[]> => {
    const res = await service.post('/api/chat/loadMessages', { user_id: userId, conversation_id: conversationId, limit: 500 });
    expect(res.status).to.equal(200);
    return res.json.messages as StoredMessage[];
  };

  const currentConversationId = async (): Promise<string> => {
    const hash = new URL(page.url()).hash.slice(1);
    const id = new URLSearchParams(hash).get('conversation');
    expect(id, `the page URL names the conversation: ${page.url()}`).to.be.a('string');
    return id as string;
  };

  /** Types a message, sends it with Enter and waits for the reply to finish streaming. */
  const sendAndWait = async (text: string, replies: number) => {
    await page.locator('#composer-text').fill(text);
    await page.locator('#composer-text').press('Enter');
    await waitUntil(
      `document.querySelectorAll('#message-list .message--assistant[data-message-id]:not([data-streaming])').length === ${replies}`,
    );
    await expectSendReady();
  };

  const expectSendReady = async () => {
    await waitUntil(`!document.querySelector('#send').disabled && document.querySelector('#stop').hidden`);
  };

  it('opens, shows the persona and the graph database status', async () => {
    const opened = await page.goto(`${service.url}/`);
    expect(service.url.startsWith(`${scheme}:`)).to.equal(true);
    if (scheme === 'https') {
      expect(await page.evaluate(`performance.getEntriesByType('navigation')[0].nextHopProtocol`), 'the page came over HTTP/2').to.equal('h2');
      expect(opened?.headers()['strict-transport-security']).to.equal('max-age=15552000');
    }
    const persona = (await service.call('GET', '/api/ai/traits')).json;
    expect(persona.name).to.be.a('string').and.not.equal('');
    await waitUntil(`document.querySelector('#persona-name').textContent === ${JSON.stringify(persona.name)}`);
    expect(await page.locator('#persona-description').textContent()).to.equal(persona.description);
    expect(await page.locator('#persona-traits meter').count()).to.equal(5);
    await waitUntil(`document.querySelector('#graph-status').dataset.state !== 'unknown'`);
    expect(await page.locator('#graph-status').getAttribute('data-state')).to.equal('disabled');
    expect(await page.locator('#graph-status').textContent()).to.match(/^Disabled: no graph database is configured/);
    expect(await page.locator('#composer-text').isDisabled(), 'no user yet: nothing to send').to.equal(true);
  });

  it('takes a user name and streams a reply as it arrives', async () => {
    await page.locator('#user-name').fill(userId);
    await page.locator('#user-name').press('Enter');
    await waitUntil(`!document.querySelector('#composer-text').disabled`);
    await waitUntil(`document.activeElement === document.querySelector('#composer-text')`);

    // Record the streaming reply's text length and live-region attributes at every DOM change.
    await page.evaluate(`(() => {
      window.__reply = { lengths: [], live: new Set() };
      new MutationObserver(() => {
        const text = document.querySelector('#message-list [data-streaming="true"] .message__text');
        if (!text) return;
        window.__reply.lengths.push(text.textContent.length);
        window.__reply.live.add(text.getAttribute('aria-live'));
      }).observe(document.querySelector('#message-list'), { childList: true, subtree: true, characterData: true });
    })()`);

    await sendAndWait('Hello! Who are you?', 1);

    const seen = (await page.evaluate(`({ lengths: window.__reply.lengths, live: [...window.__reply.live] })`)) as {
      lengths: number[];
      live: string[];
    };
    const distinct = [...new Set(seen.lengths)].filter((length) => length > 0);
    expect(distinct.length, `intermediate lengths seen: ${seen.lengths.join(', ')}`).to.be.greaterThan(2);
    expect(distinct, 'the reply only grows').to.deep.equal([...distinct].sort((a, b) => a - b));
    expect(seen.live).to.deep.equal(['polite']);

    const conversationId = await currentConversationId();
    const stored = await loadMessages(conversationId);
    expect(stored.map((m) => m.role)).to.deep.equal(['user', 'assistant']);
    const reply = page.locator('#message-list .message--assistant');
    expect(await reply.locator('.message__text').textContent()).to.equal(stored[1]!.text);
    expect(stored[1]!.text.length).to.equal(distinct.at(-1));
    expect(await reply.getAttribute('data-message-id')).to.equal(stored[1]!.message_id);
    expect(await page.locator('#message-list .message--user').getAttribute('data-message-id')).to.equal(stored[0]!.message_id);
  });

  it('sends a second message and lists the conversation with its title', async () => {
    await sendAndWait('I feel tired today', 2);
    const conversationId = await currentConversationId();
    const listed = (await service.call('GET', `/api/chat/conversations?user_id=${encodeURIComponent(userId)}`)).json;
    expect(listed.conversations).to.have.length(1);
    const title: string = listed.conversations[0].title;
    expect(title).to.match(/^Hello/);
    const entry = page.locator(`#conversation-list button.conversation[data-conversation-id="${conversationId}"]`);
    await waitUntil(
      `document.querySelector('#conversation-list button.conversation[aria-current="true"] .conversation__meta')?.textContent.startsWith('4 messages')`,
    );
    expect(await entry.locator('.conversation__title').textContent()).to.equal(title);
    expect(await entry.getAttribute('aria-current')).to.equal('true');
    expect(await page.locator('#chat-title').textContent()).to.equal(title);
    // The user's usage today, in the side panel (limits off: no limits line).
    await waitUntil(`document.querySelector('#usage-counts [data-usage="requests"] dd')?.textContent === '2'`);
    expect(await page.locator('#usage-limits').isHidden()).to.equal(true);

    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, scheme === 'https' ? 'demo-https.png' : 'demo.png') });
  });

  it('shows the stored messages again after a reload', async () => {
    const conversationId = await currentConversationId();
    await page.reload();
    await waitUntil(`document.querySelectorAll('#message-list [data-message-id]').length === 4`);
    expect(await page.locator('#user-name').inputValue(), 'the user name is remembered').to.equal(userId);
    const stored = await loadMessages(conversationId);
    const shown = await page.evaluate(
      `[...document.querySelectorAll('#message-list [data-message-id]')].map((item) =>
        ({ id: item.dataset.messageId, role: item.dataset.role, text: item.querySelector('.message__text').textContent }))`,
    );
    expect(shown).to.deep.equal(stored.map((m) => ({ id: m.message_id, role: m.role, text: m.text })));
  });

  it('deletes a message', async () => {
    const conversationId = await currentConversationId();
    const before = await loadMessages(conversationId);
    const victim = before[1]!; // the first reply
    // From the keyboard: it stays on the next message's Delete (a disabled button dropped it to the page's body).
    await page.locator(`#message-list [data-message-id="${victim.message_id}"] .message__delete`).focus();
    await page.keyboard.press('Enter');
    await waitUntil(`document.querySelectorAll('#message-list [data-message-id]').length === 3`);
    expect(await page.evaluate(`document.activeElement?.closest('[data-message-id]')?.dataset.messageId + ' ' + document.activeElement?.className`)).to.match(
      new RegExp(`^${before[2]!.message_id} .*message__delete`),
    );
    expect(await page.locator(`#message-list [data-message-id="${victim.message_id}"]`).count()).to.equal(0);
    const after = await loadMessages(conversationId);
    expect(after.map((m) => m.message_id)).to.deep.equal(before.filter((m) => m !== victim).map((m) => m.message_id));
  });

  it('plays a reply aloud, or shows why it cannot', async () => {
    const reply = page.locator('#message-list .message--assistant[data-message-id]').first();
    await reply.locator('.message__play').click();
    await waitUntil(
      `(() => {
        const item = document.querySelector('#message-list .message--assistant[data-message-id]');
        const note = item.querySelector('.message__note.is-error');
        return Boolean(item.querySelector('audio')?.src.startsWith('blob:') || note?.textContent);
      })()`,
    );
    const tts = await service.call('GET', `/api/tts?message_id=${await reply.getAttribute('data-message-id')}&user_id=${encodeURIComponent(userId)}`);
    if (tts.status === 200) {
      expect(await reply.locator('audio').count()).to.equal(1);
    } else {
      expect(await reply.locator('.message__note').textContent()).to.equal(`Speech: ${tts.json.detail}`);
    }
  });

  it('plays one reply aloud at a time: Play aloud on another pauses the first (they played over each other)', async () => {
    const conversationId = `voices-${Date.now().toString(36)}`;
    const messages = ['Question one?', 'The first answer, spoken at some length so that it lasts.', 'Question two?', 'The second answer, spoken at some length too.'].map((text, i) => ({
      role: i % 2 === 0 ? 'user' : 'assistant',
      text,
    }));
    expect((await service.post('/api/chat/saveSession', { user_id: userId, conversation_id: conversationId, messages })).status).to.equal(201);
    await page.evaluate(`location.hash = ${JSON.stringify(`conversation=${encodeURIComponent(conversationId)}`)}`);
    const replies = '#message-list .message--assistant[data-message-id]';
    await waitUntil(`document.querySelectorAll('${replies}').length === 2`);
    const [first, second] = [page.locator(replies).nth(0), page.locator(replies).nth(1)];
    await first.locator('.message__play').click();
    await waitUntil(`document.querySelector('${replies} audio')?.paused === false`);
    await second.locator('.message__play').click();
    await waitUntil(`document.querySelectorAll('${replies} audio').length === 2 && document.querySelectorAll('${replies} audio')[1].paused === false`);
    expect(await page.evaluate(`[...document.querySelectorAll('${replies} audio')].map((audio) => audio.paused)`)).to.deep.equal([true, false]);
  });

  it('loads older messages when scrolled up, keeping the place', async () => {
    const conversationId = `long-${Date.now().toString(36)}`;
    const messages = Array.from({ length: 75 }, (_, i) => ({
      role: i % 2 === 0 ? 'user' : 'assistant',
      text: `Message number ${i + 1}`,
      created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(),
    }));
    const saved = await service.post('/api/chat/saveSession', { user_id: userId, conversation_id: conversationId, title: 'A long talk', messages });
    expect(saved.status).to.equal(201);
    await page.reload();
    await page.locator(`#conversation-list button.conversation[data-conversation-id="${conversationId}"]`).click();
    await waitUntil(`document.querySelectorAll('#message-list [data-message-id]').length === 30`);
    const firstText = `document.querySelector('#message-list [data-message-id] .message__text').textContent`;
    expect(await page.evaluate(firstText)).to.equal('Message number 46');

    // Scroll to the top: the next page arrives above, and the message that was first stays in view.
    const anchorTop = `document.querySelector('#message-list [data-message-id]').getBoundingClientRect().top`;
    await page.evaluate(`window.__anchor = document.querySelector('#message-list [data-message-id]'); document.querySelector('#message-scroller').scrollTop = 0`);
    const before = (await page.evaluate(`window.__anchor.getBoundingClientRect().top`)) as number;
    await waitUntil(`document.querySelectorAll('#message-list [data-message-id]').length === 60`);
    const after = (await page.evaluate(`window.__anchor.getBoundingClientRect().top`)) as number;
    expect(Math.abs(after - before), 'the message that was first did not move').to.be.lessThan(2);
    expect(await page.evaluate(firstText)).to.equal('Message number 16');
    expect(await page.evaluate(anchorTop), 'the older messages are above the view').to.be.lessThan(0);

    await page.evaluate(`document.querySelector('#message-scroller').scrollTop = 0`);
    await waitUntil(`document.querySelectorAll('#message-list [data-message-id]').length === 75`);
    expect(await page.evaluate(firstText)).to.equal('Message number 1');
    expect(await page.locator('#load-older').isHidden()).to.equal(true);
    const texts = await page.locator('#message-list [data-message-id] .message__text').allTextContents();
    expect(texts).to.deep.equal(messages.map((m) => m.text));
  });

  it('searches the messages and opens a result at its message, on its branch', async () => {
    const conversationId = `search-${Date.now().toString(36)}`;
    const found = '<b>Quokka</b> census: count them before the end of May.';
    const messages = Array.from({ length: 70 }, (_, i) => ({
      role: i % 2 === 0 ? 'user' : 'assistant',
      text: i === 4 ? found : `Small talk number ${i + 1}`,
      created_at: new Date(Date.UTC(2026, 1, 1, 0, 0, i)).toISOString(),
    }));
    expect((await service.post('/api/chat/saveSession', { user_id: userId, conversation_id: conversationId, title: 'Wildlife counts', messages })).status).to.equal(201);
    // The same words of another user are never found.
    await service.post('/api/chat/saveMessage', { user_id: `${userId}-other`, conversation_id: `${conversationId}-other`, role: 'user', text: found });
    const switches: string[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/api/chat/switchBranch')) switches.push(request.postData() ?? '');
    });

    await page.locator('#search-text').fill('quokkas');
    await page.locator('#search-text').press('Enter');
    await waitUntil(`document.querySelectorAll('#search-results button.search-result').length === 1`);
    const result = page.locator('#search-results button.search-result');
    expect(await result.locator('.search-result__title').textContent()).to.equal('Wildlife counts');
    expect(await result.locator('.search-result__snippet').textContent(), 'plain text, never HTML').to.equal(found);
    expect(await result.locator('.search-result__snippet b').count()).to.equal(0);
    expect(await result.locator('.search-result__snippet mark').allTextContents()).to.deep.equal(['Quokka']);
    expect(await page.locator('#search-status').textContent()).to.equal('1 result.');

    await result.click();
    const messageId = (await result.getAttribute('data-message-id'))!;
    const shown = `#message-list [data-message-id="${messageId}"]`;
    await waitUntil(`document.querySelector(${JSON.stringify(shown)})?.classList.contains('message--found')`);
    expect(await currentConversationId()).to.equal(conversationId);
    expect(await page.evaluate(`document.activeElement === document.querySelector(${JSON.stringify(shown)})`)).to.equal(true);
    const inView = await page.evaluate(`(() => {
      const box = document.querySelector(${JSON.stringify(shown)}).getBoundingClientRect();
      const view = document.querySelector('#message-scroller').getBoundingClientRect();
      return box.top >= view.top && box.bottom <= view.bottom;
    })()`);
    expect(inView, 'the message found is scrolled into view, 65 messages up').to.equal(true);
    expect(switches.map((body) => JSON.parse(body))).to.deep.equal([{ user_id: userId, conversation_id: conversationId, message_id: messageId }]);

    await page.locator('#search-text').fill('nothing-like-this-anywhere');
    await page.locator('#search-text').press('Enter');
    await waitUntil(`document.querySelector('#search-status').textContent.startsWith('Nothing found')`);
    expect(await page.locator('#search-results li').count()).to.equal(0);
  });

  it('shows an error event, a refused message and a speech failure in the conversation', async () => {
    const conversationId = await currentConversationId();
    // A model that fails half-way (the service's own failures are tested in test/http).
    await page.route('**/v1/chat/stream', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'text/event-stream; charset=utf-8',
        body: [
          `event: start\ndata: ${JSON.stringify({ conversation_id: conversationId, user_message_id: 'u-fake', message_id: 'a-fake' })}\n\n`,
          ': ping\n\n',
          'event: delta\ndata: {"text":"Half a "}\n\n',
          'event: error\ndata: {"detail":"the language model answered 500 Internal Server Error","status":"error"}\n\n',
        ].join(''),
      }),
    );
    await page.locator('#composer-text').fill('Are you there?');
    await page.locator('#composer-text').press('Enter');
    await waitUntil(`document.querySelector('#message-list .message--error .message__text')?.textContent === 'Error: the language model answered 500 Internal Server Error'`);
    expect(await page.locator('#message-list .message--error .message__retry').textContent(), 'a failed reply can be asked for again').to.equal('Try again');
    await expectSendReady();
    const partial = page.locator('#message-list [data-message-id="a-fake"]');
    expect(await partial.locator('.message__text').textContent()).to.equal('Half a ');
    expect(await partial.getAttribute('data-finish-reason')).to.equal('error');
    expect(await page.locator('#message-list .message--error').getAttribute('role')).to.equal('alert');
    await page.unroute('**/v1/chat/stream');

    // Refused before anything is stored: the error shows and the text comes back to be edited.
    const tooLong = 'x'.repeat(32_001);
    await page.locator('#composer-text').fill(tooLong);
    await page.locator('#composer-text').press('Enter');
    await waitUntil(`document.querySelectorAll('#message-list .message--error').length === 2`);
    await expectSendReady();
    expect(await page.locator('#message-list .message--error').last().textContent()).to.match(/^Error: text: /);
    expect(await page.locator('#composer-text').inputValue()).to.equal(tooLong);
    await page.locator('#composer-text').fill('');

    // Speech that cannot be made: the JSON detail is shown beside the button.
    await page.route('**/api/tts?*', (route) =>
      route.fulfill({ status: 503, contentType: 'application/json', body: '{"detail":"no speech engine is available","status":"error"}' }),
    );
    const reply = page.locator('#message-list .message--assistant[data-message-id]').last();
    await reply.locator('.message__play').click();
    await waitUntil(`[...document.querySelectorAll('#message-list .message__note.is-error')].some((note) => note.textContent === 'Speech: no speech engine is available')`);
    expect(await reply.locator('.message__play').textContent()).to.equal('Play aloud (unavailable)');
    await page.unroute('**/api/tts?*');
  });

  it('reads a reply whose events carry SSE ids (CRLF lines, an event it does not know)', async () => {
    const conversationId = await currentConversationId();
    const errorsBefore = await page.locator('#message-list .message--error').count();
    const ids = { conversation_id: conversationId, user_message_id: 'u-ids', message_id: 'a-ids' };
    await page.route('**/v1/chat/stream', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'text/event-stream; charset=utf-8',
        body: [
          `id: 0\nevent: start\ndata: ${JSON.stringify(ids)}\n\n`,
          'id: 6\nevent: delta\ndata: {"text":"Ids ok"}\n\n',
          'event: audio\ndata: {"index":0,"text":"Ids ok","format":"mp3","audio":""}\n\n',
          'id: 13\nevent: delta\ndata: {"text":", still"}\n\n',
          `id: 13\nevent: done\ndata: ${JSON.stringify({ ...ids, response: 'Ids ok, still', status: 'ok', finish_reason: 'stop' })}\n\n`,
        ]
          .join('')
          .replaceAll('\n', '\r\n'),
      }),
    );
    await page.locator('#composer-text').fill('Can you resume?');
    await page.locator('#composer-text').press('Enter');
    await waitUntil(`document.querySelector('#message-list [data-message-id="a-ids"]:not([data-streaming])') !== null`);
    await expectSendReady();
    const reply = page.locator('#message-list [data-message-id="a-ids"]');
    expect(await reply.locator('.message__text').textContent()).to.equal('Ids ok, still');
    expect(await reply.getAttribute('data-finish-reason')).to.equal(null);
    expect(await reply.locator('.message__delete').isDisabled()).to.equal(false);
    expect(await page.locator('#message-list [data-message-id="u-ids"] .message__text').textContent()).to.equal('Can you resume?');
    expect(await page.locator('#message-list .message--error').count()).to.equal(errorsBefore);
    await page.unroute('**/v1/chat/stream');
  });

  it('exports the conversation and everything, and imports a ChatGPT file with its progress', async () => {
    const conversationId = await currentConversationId();
    expect(await page.locator('#conversation-export').isHidden()).to.equal(false);
    const [markdown] = await Promise.all([page.waitForEvent('download'), page.locator('#export-markdown').click()]);
    expect(markdown.suggestedFilename()).to.match(/^conversation-.*\.md$/);
    const [json] = await Promise.all([page.waitForEvent('download'), page.locator('#export-json').click()]);
    expect(JSON.parse(readFileSync((await json.path())!, 'utf8')).conversation.conversation_id).to.equal(conversationId);
    const [all] = await Promise.all([page.waitForEvent('download'), page.locator('#export-ndjson').click()]);
    expect(all.suggestedFilename()).to.equal('conversations.ndjson');
    expect(readFileSync((await all.path())!, 'utf8').trim().split('\n').length).to.be.at.least(1);

    await page.locator('#import-file').setInputFiles({ name: 'conversations.json', mimeType: 'application/json', buffer: Buffer.from(asChatGptFile([chatGptConversation(40)])) });
    await page.locator('#import-submit').click();
    await waitUntil(`document.querySelector('#import-status').textContent.startsWith('Imported 1 conversation')`);
    expect(await page.evaluate(`document.querySelector('#import-progress').value`)).to.equal(1);
    await waitUntil(`[...document.querySelectorAll('#conversation-list .conversation__title')].some((t) => t.textContent === 'Pictures and code 40 🐍')`);
    await page.locator('#import-submit').click();
    await waitUntil(`document.querySelector('#import-status').textContent.includes('1 already there')`);
  });

  it('logged no script errors and no refused resources', () => {
    expect(browser?.problems).to.deep.equal([]);
  });

  it('let every reply stream end: none shows as a failed request (each was cancelled after its done)', () => {
    expect(failedStreams).to.deep.equal([]);
  });
};

describe('demo page in Chromium', demoInChromium('http'));
describe('demo page in Chromium over HTTPS (HTTP/2)', demoInChromium('https'));

describe('demo page in Chromium: edit, regenerate, versions', function () {
  this.timeout(30_000);

  let service: TestService;
  let browser: BrowserPage | undefined;
  let page: Page;
  let waitUntil: BrowserPage['waitUntil'];
  const userId = `tree-${Date.now().toString(36)}`;
  const items = '#message-list li.message[data-message-id]';
  const conversationId = () => new URLSearchParams(new URL(page.url()).hash.slice(1)).get('conversation') ?? '';
  /** What the page shows: each message's text and its "‹ i/n ›" ('' without one). */
  const shown = () =>
    page.evaluate(`[...document.querySelectorAll('${items}')].map((item) => ({
      id: item.dataset.messageId,
      text: item.querySelector('.message__text').textContent,
      versions: item.querySelector('.message__versions')?.textContent ?? '',
    }))`) as Promise<{ id: string; text: string; versions: string }[]>;
  /** The active branch as the service lists it, and its head. */
  const branch = async () => {
    const res = await service.post('/api/chat/loadMessages', { user_id: userId, conversation_id: conversationId(), limit: 500 });
    expect(res.status).to.equal(200);
    return { ids: (res.json.messages as StoredMessage[]).map((m) => m.message_id), head: res.json.head_id as string };
  };
  const settled = (count: number) =>
    waitUntil(
      `document.querySelectorAll('${items}').length === ${count} && !document.querySelector('${items}[data-streaming]')
        && !document.querySelector('#send').disabled && document.querySelector('#stop').hidden`,
    );
  const chatRequest = () => page.waitForRequest((request) => request.method() === 'POST' && request.url().endsWith('/v1/chat/stream'));

  before(async function () {
    service = await startTestService({ OFFLINE_STREAM_DELAY_MS: '20' });
    browser = await openChromium(this);
    ({ page, waitUntil } = browser);
    await page.goto(`${service.url}/`);
    await page.locator('#user-name').fill(userId);
    await page.locator('#user-name').press('Enter');
    await waitUntil(`!document.querySelector('#composer-text').disabled`);
    for (const [text, count] of [['Hello! Who are you?', 2], ['I feel tired today', 4]] as const) {
      await page.locator('#composer-text').fill(text);
      await page.locator('#composer-text').press('Enter');
      await settled(count);
    }
  });

  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  it('edits a question: the new version streams in its place, with "‹ 2/2 ›"', async () => {
    const before = await shown();
    expect(before.map((m) => m.versions)).to.deep.equal(['', '', '', '']);
    const first = page.locator(items).nth(0);
    const second = page.locator(items).nth(2);
    expect(await first.locator('.message__edit').isVisible(), 'a first message has Edit too').to.equal(true);
    expect(await second.locator('.message__edit').getAttribute('aria-label')).to.match(new RegExp(`^Edit the message from ${userId}`));

    // Escape closes the editor unchanged.
    await second.locator('.message__edit').click();
    const field = second.locator('.message__editor textarea');
    expect(await field.inputValue()).to.equal('I feel tired today');
    expect(await page.evaluate(`document.activeElement === document.querySelector('.message__editor textarea')`)).to.equal(true);
    await field.press('Escape');
    expect(await second.locator('.message__editor').count()).to.equal(0);
    expect(await second.locator('.message__text').isVisible()).to.equal(true);

    await second.locator('.message__edit').click();
    await field.fill('I feel rested today');
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'demo-editing.png') });
    const sent = chatRequest();
    await field.press('Enter');
    expect((await sent).postDataJSON()).to.deep.equal({ user_id: userId, conversation_id: conversationId(), text: 'I feel rested today', parent_id: before[1]!.id });
    await settled(4);
    await waitUntil(`document.querySelectorAll('${items}')[2].querySelector('.message__versions')?.textContent === '‹ 2/2 ›'`);
    const after = await shown();
    expect(after.slice(0, 2)).to.deep.equal(before.slice(0, 2));
    expect(after.map((m) => m.text).slice(2, 3)).to.deep.equal(['I feel rested today']);
    expect(after.map((m) => m.versions)).to.deep.equal(['', '', '‹ 2/2 ›', '']);
    expect(after[3]!.id).not.to.equal(before[3]!.id);
    expect(await branch()).to.deep.equal({ ids: after.map((m) => m.id), head: after[3]!.id });
    const versions = second.locator('.message__versions');
    expect(await versions.getAttribute('aria-label')).to.equal(`Version 2 of 2 of the message from ${userId}`);
    expect(await versions.locator('.message__version--previous').isDisabled()).to.equal(false);
    expect(await versions.locator('.message__version--next').isDisabled()).to.equal(true);
    await page.screenshot({ path: join(ARTIFACTS, 'demo-versions.png') });
  });

  it('flips back with ‹: the old branch shows again, and › returns', async () => {
    const edited = await shown();
    await page.locator(items).nth(2).locator('.message__version--previous').click();
    await waitUntil(`document.querySelectorAll('${items}')[2]?.querySelector('.message__text').textContent === 'I feel tired today'`);
    await settled(4);
    const old = await shown();
    expect(old.map((m) => m.versions)).to.deep.equal(['', '', '‹ 1/2 ›', '']);
    expect(old.slice(0, 2)).to.deep.equal(edited.slice(0, 2));
    expect(await branch()).to.deep.equal({ ids: old.map((m) => m.id), head: old[3]!.id });
    expect(await page.evaluate(`document.activeElement?.classList.contains('message__version--next')`), 'the keyboard stays on the control').to.equal(true);

    await page.keyboard.press('Enter');
    await waitUntil(`document.querySelectorAll('${items}')[2]?.querySelector('.message__text').textContent === 'I feel rested today'`);
    await settled(4);
    expect(await shown()).to.deep.equal(edited);
    await page.locator(items).nth(2).locator('.message__version--previous').click();
    await waitUntil(`document.querySelectorAll('${items}')[2]?.querySelector('.message__text').textContent === 'I feel tired today'`);
    await settled(4);
  });

  it('regenerates a reply: the new one streams in its place, with "‹ 2/2 ›"', async () => {
    const before = await shown();
    const reply = page.locator(items).nth(3);
    expect(await reply.locator('.message__regenerate').getAttribute('aria-label')).to.match(/^Regenerate the reply from /);
    const sent = chatRequest();
    await reply.locator('.message__regenerate').click();
    expect((await sent).postDataJSON()).to.deep.equal({ user_id: userId, conversation_id: conversationId(), regenerate: before[3]!.id });
    await waitUntil(`document.querySelector('${items}:last-child')?.dataset.messageId !== ${JSON.stringify(before[3]!.id)}`);
    await settled(4);
    await waitUntil(`document.querySelector('${items}:last-child .message__versions')?.textContent === '‹ 2/2 ›'`);
    const after = await shown();
    expect(after.slice(0, 3)).to.deep.equal(before.slice(0, 3));
    expect(after[3]!.versions).to.equal('‹ 2/2 ›');
    expect(await branch()).to.deep.equal({ ids: after.map((m) => m.id), head: after[3]!.id });

    // The first reply is a click away; a reload shows the active branch.
    await page.locator(items).nth(3).locator('.message__version--previous').click();
    await waitUntil(`document.querySelector('${items}:last-child')?.dataset.messageId === ${JSON.stringify(before[3]!.id)}`);
    await settled(4);
    expect((await shown())[3]!.versions).to.equal('‹ 1/2 ›');
    await page.reload();
    await settled(4);
    expect(await shown()).to.deep.equal([...before.slice(0, 3), { ...before[3]!, versions: '‹ 1/2 ›' }]);
  });

  it('puts everything back when the service refuses the new version', async () => {
    const before = await shown();
    await page.route('**/v1/chat/stream', (route) =>
      route.fulfill({ status: 409, contentType: 'application/json', body: '{"detail":"a reply to this message is still being written","status":"error"}' }),
    );
    await page.locator(items).nth(3).locator('.message__regenerate').click();
    await waitUntil(`document.querySelector('#message-list .message--error')?.textContent === 'Error: a reply to this message is still being written'`);
    await settled(4);
    expect(await shown()).to.deep.equal(before);

    await page.locator(items).nth(2).locator('.message__edit').click();
    await page.locator('.message__editor textarea').fill('I feel sleepy today');
    await page.locator('.message__editor-send').click();
    await waitUntil(`document.querySelectorAll('#message-list .message--error').length === 2`);
    await settled(4);
    expect(await page.locator('.message__editor textarea').inputValue(), 'the edit stays open to try again').to.equal('I feel sleepy today');
    await page.unroute('**/v1/chat/stream');
    await page.locator('.message__editor-cancel').click();
    expect(await shown()).to.deep.equal(before);
  });

  it('deletes the reply shown last: its question then shows its other version, not nothing', async () => {
    await page.reload();
    await settled(4);
    const before = await shown();
    expect(before[3]!.versions).to.equal('‹ 1/2 ›');
    await page.locator(items).nth(3).locator('.message__delete').click();
    await waitUntil(`document.querySelector('${items}:last-child')?.dataset.messageId !== ${JSON.stringify(before[3]!.id)}`);
    await settled(4);
    const after = await shown();
    expect(after.slice(0, 3)).to.deep.equal(before.slice(0, 3));
    expect(after[3]!.id).to.not.equal(before[3]!.id);
    expect(await branch()).to.deep.equal({ ids: after.map((m) => m.id), head: after[3]!.id });
  });

  it('edits the first message: a version with no parent (parent_id null) streams in place of the whole conversation, and ‹ brings it back', async () => {
    const before = await shown();
    const first = page.locator(items).nth(0);
    await first.locator('.message__edit').click();
    await first.locator('.message__editor textarea').fill('Hello again! Who are you?');
    const sent = chatRequest();
    await first.locator('.message__editor textarea').press('Enter');
    expect((await sent).postDataJSON()).to.deep.equal({ user_id: userId, conversation_id: conversationId(), text: 'Hello again! Who are you?', parent_id: null });
    await settled(2);
    await waitUntil(`document.querySelector('${items} .message__versions')?.textContent === '‹ 2/2 ›'`);
    const after = await shown();
    expect(after.map((m) => m.text)[0]).to.equal('Hello again! Who are you?');
    expect(await branch()).to.deep.equal({ ids: after.map((m) => m.id), head: after[1]!.id });

    await page.locator(items).nth(0).locator('.message__version--previous').click();
    await settled(4);
    await waitUntil(`document.querySelector('${items} .message__versions')?.textContent === '‹ 1/2 ›'`);
    expect((await shown()).map((m) => m.id)).to.deep.equal(before.map((m) => m.id));
  });

  it('logged no script errors and no refused resources', () => {
    expect(browser?.problems).to.deep.equal([]);
  });
});

describe('demo page in Chromium: managing conversations', function () {
  this.timeout(30_000);

  let service: TestService;
  let browser: BrowserPage | undefined;
  let page: Page;
  let waitUntil: BrowserPage['waitUntil'];
  const userId = `manage-${Date.now().toString(36)}`;
  let first = '';
  let second = '';
  const entry = (id: string) => `#conversation-list li.conversation-item[data-conversation-id="${id}"]`;
  const titleShown = (id: string) => `document.querySelector('${entry(id)} .conversation__title')?.textContent`;
  /** The sidebar's entries, top to bottom. */
  const listed = () =>
    page.evaluate(`[...document.querySelectorAll('#conversation-list li.conversation-item')].map((item) => item.dataset.conversationId)`) as Promise<string[]>;
  const stored = (id: string) => service.call('GET', `/api/chat/conversations/${encodeURIComponent(id)}?user_id=${encodeURIComponent(userId)}`);
  const conversationId = () => new URLSearchParams(new URL(page.url()).hash.slice(1)).get('conversation') ?? '';
  const send = async (text: string) => {
    await page.locator('#composer-text').fill(text);
    await page.locator('#composer-text').press('Enter');
    await waitUntil(
      `document.querySelector('#message-list .message--assistant[data-message-id]:not([data-streaming])')
        && !document.querySelector('#send').disabled && document.querySelector('#stop').hidden`,
    );
  };

  before(async function () {
    service = await startTestService({ OFFLINE_STREAM_DELAY_MS: '20' });
    browser = await openChromium(this);
    ({ page, waitUntil } = browser);
    await page.goto(`${service.url}/`);
    await page.locator('#user-name').fill(userId);
    await page.locator('#user-name').press('Enter');
    await waitUntil(`!document.querySelector('#composer-text').disabled`);
  });

  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  /**
   * The sidebar's listings from now on: the first answered without titles (once `beforeFirst` has
   * resolved, when given), every later one held until `release()`, which also ends the routing.
   */
  const holdListings = async (beforeFirst?: () => Promise<unknown>) => {
    let listings = 0;
    let release = () => {};
    const released = new Promise<void>((resolve) => (release = resolve));
    const isListing = (url: URL) => url.pathname.endsWith('/api/chat/conversations');
    await page.route(isListing, async (route) => {
      listings += 1;
      if (listings > 1) {
        await released;
        return route.continue().catch(() => {});
      }
      const response = await route.fetch();
      const body = await response.json();
      for (const conversation of body.conversations) Object.assign(conversation, { title: null, title_source: null });
      await beforeFirst?.();
      return route.fulfill({ response, json: body });
    });
    return {
      count: () => listings,
      release: async () => {
        release();
        await page.unroute(isListing);
      },
    };
  };

  it("shows a first turn's title from its title event, before the list is asked for again", async () => {
    // The listing that shows the new conversation comes without titles; every later one waits.
    const listings = await holdListings();
    await send('Plan a weekend in Lisbon for me');
    first = conversationId();
    const { conversation } = (await stored(first)).json;
    expect(conversation.title_source).to.equal('first_message');
    expect(conversation.title).to.be.a('string').and.match(/Lisbon/);
    await waitUntil(`${titleShown(first)} === ${JSON.stringify(conversation.title)}`);
    expect(listings.count(), 'the list was not shown again meanwhile').to.equal(2);
    expect(await page.locator('#chat-title').textContent()).to.equal(conversation.title);
    await listings.release();
  });

  it('renames a conversation in place: the new title shows, and stays after a reload', async () => {
    await page.locator('#new-conversation').click();
    await send('Tell me about books');
    second = conversationId();
    await waitUntil(`document.querySelectorAll('#conversation-list li.conversation-item').length === 2`);
    expect(await listed()).to.deep.equal([second, first]);

    // Escape closes the editor unchanged.
    const before = await page.evaluate(titleShown(first));
    await page.locator(`${entry(first)} .conversation__rename`).click();
    await page.locator(`${entry(first)} .conversation__editor input`).fill('Not this');
    await page.locator(`${entry(first)} .conversation__editor input`).press('Escape');
    expect(await page.locator(`${entry(first)} .conversation__editor`).count()).to.equal(0);
    expect(await page.evaluate(titleShown(first))).to.equal(before);

    await page.locator(`${entry(first)} .conversation__rename`).click();
    expect(await page.evaluate(`document.activeElement.matches('${entry(first)} .conversation__editor input')`)).to.equal(true);
    await page.locator(`${entry(first)} .conversation__editor input`).fill('Lisbon weekend');
    await page.locator(`${entry(first)} .conversation__editor input`).press('Enter');
    await waitUntil(`${titleShown(first)} === 'Lisbon weekend' && !document.querySelector('${entry(first)} .conversation__editor')`);
    const { conversation } = (await stored(first)).json;
    expect([conversation.title, conversation.title_source]).to.deep.equal(['Lisbon weekend', 'user']);
    await waitUntil(`document.activeElement?.matches('${entry(first)} .conversation__rename')`);

    await page.reload();
    await waitUntil(`${titleShown(first)} === 'Lisbon weekend'`);
  });

  it('pins a conversation: it moves to the top, and Unpin says so', async () => {
    expect(await listed()).to.deep.equal([second, first]);
    await page.locator(`${entry(first)} .conversation__pin`).click();
    await waitUntil(`document.querySelector('#conversation-list li.conversation-item')?.dataset.conversationId === '${first}'`);
    expect(await listed()).to.deep.equal([first, second]);
    const pin = page.locator(`${entry(first)} .conversation__pin`);
    expect([await pin.textContent(), await pin.getAttribute('aria-pressed')]).to.deep.equal(['Unpin', 'true']);
    expect((await stored(first)).json.conversation.pinned).to.equal(true);
  });

  it('archives a conversation: it leaves the list and shows under archived', async () => {
    expect(conversationId(), 'the conversation shown').to.equal(second);
    await page.locator(`${entry(second)} .conversation__archive`).click();
    await waitUntil(`!document.querySelector('${entry(second)}')`);
    expect(await listed()).to.deep.equal([first]);
    expect((await stored(second)).json.conversation.archived).to.equal(true);
    const heading = async () => [await page.locator('#chat-title').textContent(), await page.locator('#chat-meta').textContent()];
    const [title, meta] = await heading();
    expect(title, 'the heading keeps the title of the conversation shown, now unlisted').to.equal('Tell me about books');
    expect(meta).to.match(/^2 messages, started /);
    await page.reload();
    await waitUntil(`document.querySelector('#chat-title').textContent === 'Tell me about books'`);
    expect(await heading()).to.deep.equal([title, meta]);

    await page.locator('#show-archived').click();
    await waitUntil(`document.querySelector('${entry(second)}') && !document.querySelector('${entry(first)}')`);
    expect(await page.locator('#conversations-heading').textContent()).to.equal('Archived conversations');
    expect(await page.locator('#show-archived').getAttribute('aria-pressed')).to.equal('true');
    expect(await page.locator(`${entry(second)} .conversation__archive`).textContent()).to.equal('Unarchive');

    await page.locator('#show-archived').click();
    await waitUntil(`document.querySelector('${entry(first)}') && !document.querySelector('${entry(second)}')`);
    expect(await page.locator('#conversations-heading').textContent()).to.equal('Conversations');
  });

  it('deletes a conversation after a confirm: it is gone', async () => {
    await page.locator(`${entry(first)} button.conversation`).click();
    await waitUntil(`location.hash.includes(${JSON.stringify(encodeURIComponent(first))})`);
    await page.locator(`${entry(first)} .conversation__delete`).click();
    await page.locator(`${entry(first)} .conversation__confirm .conversation__cancel`).click();
    expect(await page.locator(`${entry(first)} .conversation__confirm`).count()).to.equal(0);
    expect((await stored(first)).status, 'Cancel deletes nothing').to.equal(200);

    await page.locator(`${entry(first)} .conversation__delete`).click();
    await page.locator(`${entry(first)} .conversation__confirm-delete`).click();
    await waitUntil(`!document.querySelector('${entry(first)}')`);
    expect((await stored(first)).status).to.equal(404);
    expect(await page.locator('#chat-title').textContent(), 'the conversation shown was the one deleted').to.equal('New conversation');
    expect(conversationId()).to.equal('');
    expect(await page.locator('#conversations-status').textContent()).to.equal('No conversations yet: write a message to start one.');
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'demo-manage.png') });
  });

  it('keeps a title its stream gave before the listing that shows the conversation came (read before the title was stored)', async () => {
    // The first listing is answered only once the reply has ended (its title event read), without titles; later ones wait.
    const listings = await holdListings(() => waitUntil(`document.querySelector('#message-list .message--assistant[data-message-id]:not([data-streaming])')`));
    await send('Plan a week in Kyoto for me');
    const id = conversationId();
    const { conversation } = (await stored(id)).json;
    expect(conversation.title).to.be.a('string').and.match(/Kyoto/);
    await waitUntil(`${titleShown(id)} === ${JSON.stringify(conversation.title)}`);
    expect(listings.count(), 'the list was not shown again meanwhile').to.equal(2);
    await listings.release();
  });

  it('renames one on an older page: the pages loaded stay, and the keyboard stays on it', async () => {
    for (let n = 0; n < 22; n++) {
      await service.post('/api/chat/saveMessage', { user_id: userId, conversation_id: `older-${n}`, role: 'user', text: `older conversation ${n}`, created_at: new Date(Date.UTC(2020, 0, 1, 0, n)).toISOString() });
    }
    await page.reload();
    await waitUntil(`document.querySelectorAll('#conversation-list li.conversation-item').length === 20`);
    await page.locator('#more-conversations').click();
    await waitUntil(`document.querySelectorAll('#conversation-list li.conversation-item').length > 20`);
    const shown = await listed();
    const target = shown.at(-1)!;
    await page.locator(`${entry(target)} .conversation__rename`).click();
    await page.locator(`${entry(target)} .conversation__editor input`).fill('Renamed far down');
    await page.locator(`${entry(target)} .conversation__editor input`).press('Enter');
    await waitUntil(`${titleShown(target)} === 'Renamed far down'`);
    expect(await listed()).to.deep.equal(shown);
    await waitUntil(`document.activeElement?.matches('${entry(target)} .conversation__rename')`);
  });

  it('starts a temporary chat when asked: stored temporary, not listed, no export; the choice is offered for new conversations only', async () => {
    await page.locator('#new-conversation').click();
    await waitUntil(`!document.querySelector('#temporary-label').hidden`);
    await page.locator('#temporary-chat').check();
    const before = await listed();
    await send('A plan to keep to myself');
    const id = conversationId();
    expect(id).to.not.equal('');
    const { json } = await stored(id);
    expect(json.conversation.temporary).to.equal(true);
    expect(await page.locator('#chat-title').textContent()).to.equal('Temporary conversation');
    expect(await page.locator('#temporary-label').isHidden()).to.equal(true);
    expect(await page.locator('#conversation-export').isHidden()).to.equal(true);
    expect(await listed()).to.deep.equal(before);
    await page.locator('#new-conversation').click();
    await waitUntil(`!document.querySelector('#temporary-label').hidden`);
    await page.locator('#temporary-chat').uncheck();
  });

  it('fits a narrow sidebar (1024 px wide) and sets each text its own direction', async () => {
    await page.setViewportSize({ width: 1024, height: 800 });
    const sidebar = await page.evaluate(`(() => { const s = document.querySelector('.sidebar'); const b = document.querySelector('#search-submit').getBoundingClientRect(); return [s.scrollWidth <= s.clientWidth, b.right <= s.getBoundingClientRect().right]; })()`);
    expect(sidebar, 'no sideways scrolling; the Search button inside').to.deep.equal([true, true]);
    await send('مرحبا، كيف حالك اليوم؟');
    expect(await page.evaluate(`[...document.querySelectorAll('#message-list .message__text')].every((p) => p.dir === 'auto')`)).to.equal(true);
    expect(await page.evaluate(`[...document.querySelectorAll('#message-list .message--user .message__text')].at(-1).matches(':dir(rtl)')`)).to.equal(true);
  });

  it('on a phone (375 px), opening a conversation from the list brings the chat into view', async () => {
    await page.setViewportSize({ width: 375, height: 700 });
    await page.evaluate('window.scrollTo(0, 0)');
    const target = (await listed()).at(-1)!;
    await page.locator(`${entry(target)} button.conversation`).click();
    await waitUntil(`location.hash.includes(${JSON.stringify(encodeURIComponent(target))})`);
    await waitUntil(`(() => { const top = document.querySelector('#chat-title').getBoundingClientRect().top; return top > -5 && top < 100; })()`);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('logged no script errors and no refused resources', () => {
    expect(browser?.problems).to.deep.equal([]);
  });
});

describe('demo page in Chromium: replies that outlive their connection', function () {
  this.timeout(60_000);

  let service: TestService;
  let browser: BrowserPage | undefined;
  let page: Page;
  let waitUntil: BrowserPage['waitUntil'];
  const userId = `durable-${Date.now().toString(36)}`;
  // The offline assistant echoes a feeling back: a long one gives a reply of some 25 words,
  // which at 150 ms a word streams for nearly 4 s.
  const longMessage = (topic: string) => `I feel like the long road over the ${topic} never ends while the cold rain keeps falling on the old town`;
  const streamingText = `(document.querySelector('#message-list .message--assistant[data-streaming] .message__text')?.textContent ?? '')`;
  const finishedReply = (id: string) => `document.querySelector('#message-list [data-message-id="${id}"]:not([data-streaming])') !== null`;

  before(async function () {
    service = await startTestService({ OFFLINE_STREAM_DELAY_MS: '150' });
    browser = await openChromium(this, ['--autoplay-policy=no-user-gesture-required']);
    ({ page, waitUntil } = browser);
    await page.goto(`${service.url}/`);
    await page.locator('#user-name').fill(userId);
    await page.locator('#user-name').press('Enter');
    await waitUntil(`!document.querySelector('#composer-text').disabled`);
    await watchStreams();
  });

  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  /**
   * Keeps a copy of every chat event stream the page reads (its fetch is wrapped through
   * DevTools; Chromium keeps no body of a streamed response for Playwright): a stream the page
   * drops (aborts) fails here too, while the page merely letting go of a finished one does not.
   */
  const watchStreams = () =>
    page.evaluate(`(() => {
      const streams = (window.__streams = []);
      const fetchPage = window.fetch.bind(window);
      window.fetch = async (input, init) => {
        const response = await fetchPage(input, init);
        if (!(response.headers.get('content-type') ?? '').startsWith('text/event-stream') || !response.body) return response;
        const [forPage, forTest] = response.body.tee();
        const stream = { url: String(input), state: 'open', text: '' };
        streams.push(stream);
        new Response(forTest).text().then(
          (text) => Object.assign(stream, { state: 'ended', text }),
          (error) => Object.assign(stream, { state: 'failed: ' + error.name }),
        );
        return new Response(forPage, { status: response.status, statusText: response.statusText, headers: response.headers });
      };
    })()`);
  const lastStream = async () => {
    await waitUntil(`window.__streams.length > 0 && window.__streams.at(-1).state !== 'open'`, 15_000);
    return (await page.evaluate('window.__streams.at(-1)')) as { url: string; state: string; text: string };
  };

  const send = async (text: string) => {
    await page.locator('#composer-text').fill(text);
    await page.locator('#composer-text').press('Enter');
  };
  const sendReady = () => waitUntil(`!document.querySelector('#send').disabled && document.querySelector('#stop').hidden`);
  const conversationId = () => new URLSearchParams(new URL(page.url()).hash.slice(1)).get('conversation') ?? '';
  const shownText = (id: string) => page.locator(`#message-list [data-message-id="${id}"] .message__text`).textContent();
  const stored = async (messageId: string) => {
    const res = await service.post('/api/chat/loadMessages', { user_id: userId, conversation_id: conversationId(), limit: 500 });
    expect(res.status).to.equal(200);
    const message = (res.json.messages as (StoredMessage & { status: string; metadata: Record<string, unknown> })[]).find((m) => m.message_id === messageId);
    expect(message, `reply ${messageId} is stored`).not.to.equal(undefined);
    return message!;
  };

  /** Stops the reply streaming now with `press` and checks what the service and the page did. */
  const stopWith = async (press: () => Promise<void>) => {
    await waitUntil(`${streamingText}.split(' ').length >= 3`);
    const versionButtons = `[...document.querySelectorAll('#message-list :is(.message__edit:not([hidden]), .message__regenerate)')]`;
    expect(await page.evaluate(`${versionButtons}.map((button) => button.disabled)`), 'no edit or regenerate while a reply streams').to.satisfy(
      (disabled: boolean[]) => disabled.length > 0 && disabled.every(Boolean),
    );
    const stopRequest = page.waitForRequest((request) => /\/v1\/chat\/stream\/[^/]+\/stop$/.test(request.url()));
    await press();
    const request = await stopRequest;
    expect(request.method()).to.equal('POST');
    expect(request.postDataJSON()).to.deep.equal({ user_id: userId });
    const messageId = decodeURIComponent(new URL(request.url()).pathname.split('/').at(-2)!);
    await waitUntil(finishedReply(messageId));
    await sendReady();
    const stream = await lastStream();
    expect(stream.state, 'the page kept its connection').to.equal('ended');
    expect(stream.text, 'the stream ended with done').to.match(/\nevent: done\nid: \d+\ndata: .*"finish_reason":"cancelled"/);

    const reply = await stored(messageId);
    expect(reply.metadata.finish_reason).to.equal('cancelled');
    expect(reply.status).to.equal('completed');
    expect(reply.text.trim().split(/\s+/).length, 'cut short (the whole reply has some 25 words)').to.be.within(2, 20);
    const item = page.locator(`#message-list [data-message-id="${messageId}"]`);
    expect(await shownText(messageId), 'the text of the `done` event').to.equal(reply.text);
    expect(await item.getAttribute('data-finish-reason')).to.equal('cancelled');
    expect(await item.locator('.message__flag').textContent()).to.equal('stopped');
    expect(await item.locator('.message__delete').isDisabled()).to.equal(false);
    expect(await item.locator('.message__regenerate').isDisabled(), 'a stopped reply can be asked for again').to.equal(false);
  };

  it('stops a reply with the Stop button and with Escape: the service stores it cancelled', async () => {
    await send(longMessage('green hills'));
    await stopWith(() => page.locator('#stop').click());
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'demo-stopped.png') });

    await send(longMessage('grey mountains'));
    await stopWith(() => page.locator('#composer-text').press('Escape'));

    // From the keyboard on Stop itself: the keyboard goes on to the message box, not to the page's body.
    await send(longMessage('blue lakes'));
    await stopWith(async () => {
      await page.locator('#stop').focus();
      await page.keyboard.press('Enter');
    });
    expect(await page.evaluate(`document.activeElement?.id`)).to.equal('composer-text');
  });

  it('shows a reply that is still being written after a reload, and streams the rest of it', async () => {
    await send(longMessage('brown fields'));
    await waitUntil(`${streamingText}.split(' ').length >= 3`);
    const resume = page.waitForRequest((request) => request.method() === 'GET' && /\/v1\/chat\/stream\/[^/?]+\?/.test(request.url()));
    await page.reload();
    const url = new URL((await resume).url());
    const messageId = decodeURIComponent(url.pathname.split('/').at(-1)!);
    expect(url.searchParams.get('user_id')).to.equal(userId);
    const after = Number(url.searchParams.get('after'));
    expect(after, 'it resumes after the text loadMessages gave').to.be.greaterThan(0);

    await waitUntil(`${streamingText}.length > 0`);
    const partial = (await shownText(messageId)) ?? '';
    expect(await page.locator('#stop').isHidden(), 'a reply in progress can be stopped').to.equal(false);
    await page.screenshot({ path: join(ARTIFACTS, 'demo-resumed.png') });
    await waitUntil(finishedReply(messageId));
    await sendReady();

    const reply = await stored(messageId);
    expect(reply.status).to.equal('completed');
    expect(reply.metadata.finish_reason).to.equal('stop');
    expect([...partial].length).to.be.at.least(after).and.below([...reply.text].length);
    expect(reply.text.startsWith(partial), 'the partial reply is the start of the whole').to.equal(true);
    expect(await shownText(messageId), 'no text lost or repeated').to.equal(reply.text);
    expect(await page.locator(`#message-list [data-message-id="${messageId}"]`).count()).to.equal(1);
    expect(await page.locator('#message-list .message--assistant .message__flag').count(), 'only the three stopped ones').to.equal(3);
  });

  it('resumes from the last id when the connection drops in the middle of an event', async () => {
    // What the page announces, in order (the status line is emptied, then given its words).
    await page.evaluate(`(() => {
      const status = document.querySelector('#chat-status');
      window.__said = [];
      new MutationObserver(() => status.textContent && window.__said.push(status.textContent)).observe(status, { childList: true, characterData: true, subtree: true });
    })()`);
    /** What the page got before the drop: `start`, three deltas and half of the next event. */
    let cut = { body: '', held: 0 };
    await page.route(
      '**/v1/chat/stream',
      async (route) => {
        const whole = await (await route.fetch()).text();
        const events = whole.split('\n\n');
        expect(events[0]).to.match(/^event: start\n/);
        const deltas = events.slice(1, 4).map((event) => JSON.parse(/^data: (.*)$/m.exec(event)![1]!).text as string);
        cut = { body: `${events.slice(0, 4).join('\n\n')}\n\n${events[4]!.slice(0, 12)}`, held: [...deltas.join('')].length };
        await route.fulfill({ status: 200, contentType: 'text/event-stream; charset=utf-8', body: cut.body });
      },
      { times: 1 },
    );
    const resume = page.waitForRequest((request) => request.method() === 'GET' && /\/v1\/chat\/stream\/[^/?]+\?/.test(request.url()));
    await send(longMessage('white beaches'));
    const url = new URL((await resume).url());
    const messageId = decodeURIComponent(url.pathname.split('/').at(-1)!);
    expect(Number(url.searchParams.get('after')), 'the id of the last whole event').to.equal(cut.held);
    await waitUntil(finishedReply(messageId));
    await sendReady();
    const reply = await stored(messageId);
    expect(reply.metadata.finish_reason).to.equal('stop');
    expect(await shownText(messageId), 'no text lost or repeated').to.equal(reply.text);
    expect(await page.locator('#message-list .message--error').count()).to.equal(0);
    const said = (await page.evaluate('window.__said')) as string[];
    const lost = said.indexOf('Connection lost: reconnecting…');
    expect(lost, `announced: ${JSON.stringify(said)}`).to.be.greaterThan(-1);
    expect(said[lost + 1], 'then that it is back, not "reconnecting…" to the end').to.match(/^Reconnected: .+ is replying$/);
    expect(said.at(-1)).to.match(/ replied$/);
  });

  it('offers Try again after a reply failed: a new reply to the same question streams in place of the failed one and the error', async () => {
    // The first stream's reply fails before its first word (the service's own stream, its deltas replaced by an error event).
    await page.route(
      '**/v1/chat/stream',
      async (route) => {
        const whole = await (await route.fetch()).text();
        const start = whole.split('\n\n')[0]!;
        const failed = `${start}\n\nevent: error\nid: 0\ndata: {"detail":"the language model answered 500 Internal Server Error","status":"error"}\n\n`;
        await route.fulfill({ status: 200, contentType: 'text/event-stream; charset=utf-8', body: failed });
      },
      { times: 1 },
    );
    const question = 'Is the river warm enough to swim today?';
    await send(question);
    const error = page.locator('#message-list .message--error');
    await waitUntil(`document.querySelector('#message-list .message--error .message__retry') !== null`);
    await sendReady();
    expect(await error.locator('.message__text').textContent()).to.equal('Error: the language model answered 500 Internal Server Error');
    const questionId = await page.locator('#message-list .message--user[data-message-id]').last().getAttribute('data-message-id');
    expect(await page.locator('#message-list .message--user').last().locator('.message__text').textContent()).to.equal(question);

    const again = page.waitForRequest((request) => request.method() === 'POST' && request.url().endsWith('/v1/chat/stream'));
    await error.locator('.message__retry').click();
    expect((await again).postDataJSON(), 'a new reply to the question').to.deep.include({ user_id: userId, regenerate: questionId });
    await sendReady();
    expect(await error.count(), 'the error is gone with the failure').to.equal(0);
    const reply = page.locator('#message-list .message--assistant[data-message-id]').last();
    const replyId = (await reply.getAttribute('data-message-id'))!;
    await waitUntil(finishedReply(replyId));
    expect((await stored(replyId)).metadata.finish_reason).to.equal('stop');
    expect(await shownText(replyId)).to.equal((await stored(replyId)).text);
    expect(await page.evaluate(`document.activeElement?.id`), 'the keyboard is in the message box').to.equal('composer-text');
  });

  it('speaks replies when asked: the audio of each sentence plays in turn', async () => {
    expect(await page.locator('#speak-replies').isChecked(), 'off unless chosen').to.equal(false);
    await page.locator('#speak-replies').check();
    await page.reload();
    await waitUntil(`!document.querySelector('#composer-text').disabled`);
    expect(await page.locator('#speak-replies').isChecked(), 'the choice is kept').to.equal(true);

    // Watch the page's blob: URLs and the media it plays (in the page, through DevTools).
    await watchStreams();
    await page.evaluate(`(() => {
      const log = (window.__speech = { created: [], revoked: [], played: [], ended: [], speaking: false });
      const create = URL.createObjectURL.bind(URL);
      const revoke = URL.revokeObjectURL.bind(URL);
      URL.createObjectURL = (blob) => { const url = create(blob); log.created.push({ url, type: blob.type, size: blob.size }); return url; };
      URL.revokeObjectURL = (url) => { log.revoked.push(url); revoke(url); };
      const play = HTMLMediaElement.prototype.play;
      const media = [];
      HTMLMediaElement.prototype.play = function () {
        log.played.push({ url: this.src, alongside: media.filter((m) => !m.paused && !m.ended).length });
        media.push(this);
        this.addEventListener('ended', () => log.ended.push(this.src), { once: true });
        return play.call(this);
      };
      new MutationObserver(() => { log.speaking ||= document.querySelector('[data-speaking="true"]') !== null; })
        .observe(document.querySelector('#message-list'), { attributes: true, subtree: true, attributeFilter: ['data-speaking'] });
    })()`);
    const streamed = page.waitForRequest((request) => request.method() === 'POST' && request.url().endsWith('/v1/chat/stream'));
    await send('Hello there, how are you? Tell me about your day.');
    expect((await streamed).postDataJSON().speech).to.deep.equal({ format: 'mp3' });
    await waitUntil(`document.querySelector('#message-list [data-speaking="true"]') !== null`);
    await page.screenshot({ path: join(ARTIFACTS, 'demo-speaking.png') });
    const frames = ((await lastStream()).text.match(/^event: audio$/gm) ?? []).length;
    expect(frames, 'the service sent audio').to.be.greaterThan(0);

    await waitUntil(`window.__speech.ended.length === ${frames} && window.__speech.revoked.length === ${frames}`, 20_000);
    const log = (await page.evaluate('window.__speech')) as {
      created: { url: string; type: string; size: number }[];
      revoked: string[];
      played: { url: string; alongside: number }[];
      ended: string[];
      speaking: boolean;
    };
    expect(log.created.map((c) => c.type)).to.deep.equal(Array(frames).fill('audio/mpeg'));
    expect(log.created.every((c) => c.size > 0)).to.equal(true);
    const urls = log.created.map((c) => c.url);
    expect(log.played.map((p) => p.url), 'each clip once, in order').to.deep.equal(urls);
    expect(log.ended, 'each played to its end').to.deep.equal(urls);
    expect(log.played.map((p) => p.alongside), 'one after another, never two at once').to.deep.equal(Array(frames).fill(0));
    expect(log.revoked, 'every URL let go').to.deep.equal(urls);
    expect(log.speaking, 'the reply was flagged while it spoke').to.equal(true);
    expect(await page.locator('[data-speaking]').count()).to.equal(0);
  });

  it('announces a reply that ended interrupted as interrupted, not as a reply like any other', async () => {
    await page.evaluate('localStorage.setItem("assistant-demo.speak", "off")');
    const ids = { conversation_id: conversationId(), user_message_id: `q-${Date.now()}`, message_id: `r-${Date.now()}` };
    const events = [
      ['start', 0, ids],
      ['delta', 5, { text: 'Hello' }],
      ['done', 5, { response: 'Hello', status: 'ok', conversation_id: ids.conversation_id, message_id: ids.message_id, finish_reason: 'interrupted' }],
    ] as const;
    const body = events.map(([event, id, data]) => `event: ${event}\nid: ${id}\ndata: ${JSON.stringify(data)}\n\n`).join('');
    await page.route('**/v1/chat/stream', (route) => route.fulfill({ status: 200, headers: { 'content-type': 'text/event-stream' }, body }));
    await send('Tell me something');
    await waitUntil(`document.querySelector('#message-list [data-message-id=${JSON.stringify(ids.message_id)}]:not([data-streaming])')`);
    await waitUntil(`!document.querySelector('#chat-status').textContent.endsWith('is replying')`);
    expect(await page.locator('#chat-status').textContent()).to.equal('Reply interrupted: the service stopped while writing it');
    await page.unroute('**/v1/chat/stream');
    await page.reload();
    await sendReady();
  });

  it('logged no script errors and no refused resources', () => {
    expect(browser?.problems).to.deep.equal([]);
  });
});

