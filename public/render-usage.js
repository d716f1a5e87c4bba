// The usage panel as DOM, text only.
import { element, ui } from './dom.js';

/** @typedef {import('./api-types.js').Usage} Usage */
/** @typedef {ReturnType<typeof import('./rate-limits.js').lastRateLimits>} RateLimits */

const number = new Intl.NumberFormat();

/** @param {Usage} usage @param {RateLimits} limits */
export function renderUsage(usage, limits) {
  const { totals } = usage;
  const rows = /** @type {[string, string, number][]} */ ([
    ['requests', 'Requests', totals.requests],
    ['input-tokens', 'Tokens read', totals.input_tokens],
    ['output-tokens', 'Tokens written', totals.output_tokens],
    ['speech-characters', 'Characters spoken', totals.speech_characters],
  ]);
  ui.usageCounts.replaceChildren(
    ...rows.map(([key, label, value]) => {
      const row = element('div', { class: 'usage__row', 'data-usage': key });
      row.append(element('dt', {}, label), element('dd', {}, number.format(value)));
      return row;
    }),
  );
  ui.usageCounts.hidden = false;
  ui.usageStatus.textContent = `${usage.days[0]?.date ?? ''} (UTC)`;
  const stated = [];
  if (limits?.requests) stated.push(`${number.format(limits.requests.remaining)} of ${number.format(limits.requests.limit)} requests left this minute`);
  if (limits?.tokens) stated.push(`${number.format(limits.tokens.remaining)} of ${number.format(limits.tokens.limit)} tokens left today (from midnight UTC, in ${limits.tokens.reset})`);
  ui.usageLimits.textContent = stated.length ? `Limits: ${stated.join('; ')}.` : '';
  ui.usageLimits.hidden = stated.length === 0;
}

export function renderUsageWaiting() {
  ui.usageCounts.hidden = true;
  ui.usageLimits.hidden = true;
  ui.usageStatus.textContent = 'Choose a user name to see your usage.';
}

/** @param {string} detail */
export function renderUsageError(detail) {
  ui.usageCounts.hidden = true;
  ui.usageStatus.textContent = `Could not load the usage: ${detail}`;
}
