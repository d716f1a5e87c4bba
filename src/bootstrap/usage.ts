import type { Logger } from 'pino';
import type { Clock } from '../application/ports/clock.js';
import type { UsageLedger } from '../application/ports/usage-ledger.js';
import { RequestAllowances } from '../application/usage/request-allowances.js';
import { UsageLimits } from '../application/usage/usage-limits.js';
import { UsageMeter } from '../application/usage/usage-meter.js';
import { JsonFileUserLimits, LimitsFileInvalidError } from '../adapters/limits/json-file-user-limits.js';
import type { Metrics } from '../adapters/metrics/metrics.js';
import { ConfigInvalidError } from './config.js';
import type { LimitsConfig } from './limits-config.js';
import { watchFolders } from './file-watch.js';
import type { Lifetime } from './lifetime.js';

export interface Usage {
  meter: UsageMeter;
  limits: UsageLimits;
}

/** A changed limits file is read once its writes have settled. */
const RELOAD_DEBOUNCE_MS = 200;

/**
 * Usage counting and the limits, on the store's ledger: the meter (counts in memory, sent in
 * batches), the request allowances (blocks of a minute's requests claimed from the ledger), the
 * per-user limits (LIMITS_FILE watched and re-read when it changes). Closed before the store:
 * the last counts are sent and unused requests given back.
 */
export function startUsage(config: LimitsConfig, ledger: UsageLedger, clock: Clock, metrics: Metrics, logger: Logger, lifetime: Lifetime): Usage {
  const userLimits = limitsOf(config);
  let loggedAt = -Infinity;
  const onSyncError = (error: unknown) => {
    if (Date.now() - loggedAt < 60_000) return;
    loggedAt = Date.now();
    logger.warn({ err: error }, 'usage: cannot send the counts to the store; they are kept and sent later');
  };
  const meter = new UsageMeter(ledger, clock, {
    syncIntervalMs: config.syncIntervalMs,
    tokenLimitOf: (userId) => userLimits.limitsFor(userId).tokensPerDay,
    onTokens: (model, usage) => {
      metrics.chatModelTokens.inc({ model, type: 'input' }, usage.promptTokens);
      metrics.chatModelTokens.inc({ model, type: 'output' }, usage.completionTokens);
    },
    onSyncError,
  });
  const allowances = new RequestAllowances(ledger, clock, config.syncIntervalMs, onSyncError);
  lifetime.own({ close: () => meter.close().catch(onSyncError) });
  lifetime.own({ close: () => allowances.close().catch(onSyncError) });
  if (config.file !== undefined) {
    const file = config.file;
    const reload = () => {
      try {
        const users = userLimits.reload();
        if (users !== null) logger.info({ file, users }, 'limits file re-read');
      } catch (error) {
        logger.warn({ file, detail: (error as Error).message }, 'limits file refused; the limits before it stay in force');
      }
    };
    lifetime.own(watchFolders([file], RELOAD_DEBOUNCE_MS, reload, (folder, error) => logger.warn({ folder, detail: error.message }, 'cannot watch the limits file\'s folder; changes need a restart')));
  }
  const { requestsPerMinute: rpm, tokensPerDay: tpd } = config;
  logger.info(
    { limits: { requestsPerMinute: rpm, tokensPerDay: tpd, file: config.file, usersNamed: userLimits.usersNamed } },
    userLimits.enabled
      ? `usage limits per user: ${rpm ?? 'no'} requests per minute, ${tpd ?? 'no'} tokens per day${config.file ? `, ${userLimits.usersNamed} users' own in ${config.file}` : ''}`
      : 'usage limits: off (set LIMIT_REQUESTS_PER_MINUTE, LIMIT_TOKENS_PER_DAY or LIMITS_FILE)',
  );
  return { meter, limits: new UsageLimits(userLimits, meter, allowances, clock) };
}

function limitsOf(config: LimitsConfig): JsonFileUserLimits {
  try {
    return new JsonFileUserLimits({ requestsPerMinute: config.requestsPerMinute, tokensPerDay: config.tokensPerDay }, config.file);
  } catch (error) {
    if (error instanceof LimitsFileInvalidError) throw new ConfigInvalidError(`invalid configuration: ${error.message}`);
    throw error;
  }
}
