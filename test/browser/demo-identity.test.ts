import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { startIdentityTestService, type IdentityTestService } from '../support/identity-service.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The demo page against a service with identity on: a pasted access token opens it. */
describe('demo page in Chromium, with identity on', function () {
  this.timeout(30_000);

  let service: IdentityTestService;
  let context: BrowserContext;
  let page: Page;
  let profile: string | undefined;
  const problems: string[] = [];
  const userId = `token-user-${Date.now().toString(36)}`;

  before(async function () {
    if (!existsSync(CHROMIUM)) {
      if (process.env.CI) throw new Error(`Chromium is required in CI and is not installed at ${CHROMIUM} (apt-get install -y chromium)`);
      console.warn(`      (skipped: no Chromium at ${CHROMIUM}; install it with apt-get install -y chromium, or set CHROMIUM_PATH)`);
      this.skip();
    }
    service = await startIdentityTestService({ OFFLINE_STREAM_DELAY_MS: '5' });
    profile = mkdtempSync(join(tmpdir(), 'demo-identity-chromium-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(10_000);
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(message.text());
    });
  });

  after(async () => {
    await context?.close();
    await service?.stop();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  /** Polls an expression in the page until it is truthy (the page's CSP refuses waitForFunction's eval). */
  const waitUntil = async (expression: string): Promise<void> => {
    const deadline = Date.now() + 10_000;
    while (!(await page.evaluate(expression))) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for: ${expression}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  it('without a token, says what the service answered', async () => {
    await page.goto(`${service.url}/`);
    await waitUntil(`document.querySelector('#persona-description').textContent.includes('authentication required')`);
    expect(await page.locator('#token-panel').getAttribute('open')).to.equal(null);
  });

  it('with a pasted token: the persona, the conversations, a streamed reply, all as the token\'s user', async () => {
    const token = await service.provider.token(userId);
    await page.locator('#token-panel summary').click();
    await page.locator('#token-value').fill(token);
    await page.locator('#token-value').press('Enter');
    const persona = (await service.call('GET', '/api/ai/traits')).json;
    await waitUntil(`document.querySelector('#persona-name').textContent === ${JSON.stringify(persona.name)}`);

    await page.locator('#user-name').fill(userId);
    await page.locator('#user-name').press('Enter');
    await waitUntil(`document.querySelector('#conversations-status').textContent.startsWith('No conversations yet')`);
    await page.locator('#composer-text').fill('Hello with a token');
    await page.locator('#composer-text').press('Enter');
    await waitUntil(`document.querySelectorAll('#message-list .message--assistant[data-message-id]:not([data-streaming])').length === 1`);

    const listed = await service.bare('GET', '/api/chat/conversations', { headers: { authorization: `Bearer ${token}` } });
    expect(listed.json.conversations).to.have.length(1);
    expect(await page.evaluate(`sessionStorage.getItem('assistant-demo.access_token')`)).to.equal(token);
    expect(await page.evaluate(`JSON.stringify(localStorage)`)).not.to.include(token);

    // Versions too: a reply asked for again, then the first one shown again (switchBranch).
    const versions = `document.querySelector('#message-list .message--assistant .message__versions')?.textContent`;
    await page.locator('#message-list .message--assistant .message__regenerate').click();
    await waitUntil(`${versions} === '‹ 2/2 ›' && !document.querySelector('#send').disabled`);
    await page.locator('#message-list .message--assistant .message__version--previous').click();
    await waitUntil(`${versions} === '‹ 1/2 ›'`);
  });

  it('resumes a reply whose connection dropped with the token too', async () => {
    await page.route(
      '**/v1/chat/stream',
      async (route) => {
        const whole = await (await route.fetch()).text();
        await route.fulfill({ status: 200, contentType: 'text/event-stream; charset=utf-8', body: `${whole.split('\n\n').slice(0, 2).join('\n\n')}\n\n` });
      },
      { times: 1 },
    );
    const resume = page.waitForRequest((request) => request.method() === 'GET' && /\/v1\/chat\/stream\/[^/?]+\?/.test(request.url()));
    await page.locator('#composer-text').fill('Hello again with a token');
    await page.locator('#composer-text').press('Enter');
    expect((await resume).headers().authorization).to.match(/^Bearer /);
    await waitUntil(`document.querySelectorAll('#message-list .message--assistant[data-message-id]:not([data-streaming])').length === 2 && !document.querySelector('#send').disabled`);
    expect(await page.locator('#message-list .message--error').count()).to.equal(0);
  });

  it("a user name other than the token's gets the service's 403 detail", async () => {
    await page.locator('#user-name').fill(`${userId}-other`);
    await page.locator('#user-name').press('Enter');
    await waitUntil(`document.querySelector('#conversations-status').textContent.includes('names another user')`);
  });

  it('reloaded, the tab keeps its token', async () => {
    await page.reload();
    await waitUntil(`document.querySelector('#token-panel').open && document.querySelector('#token-value').value !== ''`);
    await waitUntil(`!document.querySelector('#persona-description').textContent.includes('Could not load')`);
    expect(problems).to.deep.equal([]);
  });
});
