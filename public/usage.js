// "Your usage today": the user's requests, tokens and speech characters of the day (UTC), asked
// for when the user is chosen and after each reply or speech, and the limits the service stated
// on its last answer (when limits are on).
import { describeError, getUsage } from './api.js';
import { lastRateLimits } from './rate-limits.js';
import { ui } from './dom.js';
import { renderUsage, renderUsageError, renderUsageWaiting } from './render-usage.js';
import { state } from './state.js';

/** Asks for the user's usage again (a later answer replaces an earlier one only if asked for later). */
let asked = 0;

export async function loadUsage() {
  const userId = state.userId;
  ui.usageRefresh.disabled = !userId;
  if (!userId) return renderUsageWaiting();
  const ask = ++asked;
  try {
    const usage = await getUsage(userId);
    if (ask === asked && userId === state.userId) renderUsage(usage, lastRateLimits());
  } catch (error) {
    if (ask === asked) renderUsageError(describeError(error));
  }
}
