import { expect } from 'chai';
import type { Page } from 'playwright-core';
import { awayFromMinuteEdge } from '../http/usage.suite.js';
import { startTestService, type TestService } from '../support/service.js';
import { openChromium, type BrowserPage } from './chromium.js';

/** The demo page's usage panel, with limits on: today's counts, the limits stated, a 429 shown as a refusal. */
describe('demo page in Chromium: the user\'s usage and limits', function () {
  this.timeout(40_000);

  let service: TestService;
  let browser: BrowserPage | undefined;
  let page: Page;
  let waitUntil: BrowserPage['waitUntil'];
  const userId = `usage-${Date.now().toString(36)}`;

  before(async function () {
    service = await startTestService({ OFFLINE_STREAM_DELAY_MS: '5', LIMIT_REQUESTS_PER_MINUTE: '2', LIMIT_TOKENS_PER_DAY: '100000' });
    browser = await openChromium(this);
    ({ page, waitUntil } = browser);
  });

  after(async () => {
    await browser?.close();
    await service?.stop();
  });

  const shown = (key: string) => page.locator(`#usage-counts [data-usage="${key}"] dd`).textContent();
  const send = async (text: string) => {
    await page.locator('#composer-text').fill(text);
    await page.locator('#composer-text').press('Enter');
  };

  it('shows today\'s usage once a user is chosen, and again after each reply, with the limits the service stated', async () => {
    await awayFromMinuteEdge(15);
    await page.goto(`${service.url}/`);
    expect(await page.locator('#usage-status').textContent()).to.equal('Choose a user name to see your usage.');
    await page.locator('#user-name').fill(userId);
    await page.locator('#user-name').press('Enter');
    await waitUntil(`document.querySelector('#usage-counts [data-usage="requests"] dd')?.textContent === '0'`);
    expect(await page.locator('#usage-status').textContent()).to.equal(`${new Date().toISOString().slice(0, 10)} (UTC)`);

    await send('Hello! Who are you?');
    await waitUntil(`document.querySelector('#usage-counts [data-usage="requests"] dd')?.textContent === '1'`);
    const totals = (await service.call('GET', `/v1/usage?user_id=${userId}`)).json.totals;
    const format = (value: number) => new Intl.NumberFormat('en-US').format(value);
    expect(totals.output_tokens).to.be.greaterThan(0);
    await waitUntil(`document.querySelector('#usage-counts [data-usage="output-tokens"] dd')?.textContent === ${JSON.stringify(format(totals.output_tokens))}`);
    expect(await shown('input-tokens')).to.equal(format(totals.input_tokens));
    expect(await shown('speech-characters')).to.equal('0');
    const limits = await page.locator('#usage-limits').textContent();
    expect(limits).to.match(/^Limits: 1 of 2 requests left this minute; 100,000 of 100,000 tokens left today \(from midnight UTC, in (\d+h)?(\d+m)?\d+s\)\.$/);
  });

  it('shows a refused request (429) as a refusal, with the service\'s words, and counts nothing for it', async () => {
    await send('Second message.');
    await waitUntil(`document.querySelector('#usage-counts [data-usage="requests"] dd')?.textContent === '2'`);
    await waitUntil(`!document.querySelector('#send').disabled`);
    await send('One too many.');
    await waitUntil(`document.querySelector('#message-list .message--error')?.textContent?.startsWith('Error: rate limit reached: 2 requests per minute')`);
    expect(await page.locator('#composer-text').inputValue(), 'the text comes back to send later').to.equal('One too many.');
    await waitUntil(`document.querySelector('#usage-limits')?.textContent?.startsWith('Limits: 0 of 2 requests left this minute')`);
    expect(await shown('requests')).to.equal('2');
  });

  it('logged no script errors and no refused resources', () => {
    expect(browser?.problems).to.deep.equal([]);
  });
});
