import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.js';

/**
 * Never logged, whatever a log call is given: credentials, and what users wrote (texts of
 * messages and speech), which only debugging by hand should see.
 */
export const REDACTED_PATHS = [
  'password',
  '*.password',
  'apiKey',
  '*.apiKey',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'req.headers.authorization',
  'req.headers.cookie',
  'text',
  '*.text',
  'response',
  '*.response',
];

/** JSON lines by default; readable lines when the output is a terminal (or LOG_FORMAT=pretty). */
export function createLogger(config: Pick<Config, 'logLevel' | 'logFormat'>, destination?: DestinationStream): Logger {
  const pretty = !destination && (config.logFormat === 'pretty' || (config.logFormat === 'auto' && process.stdout.isTTY === true));
  const options = {
    level: config.logLevel,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    ...(pretty ? { transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l' } } } : {}),
  };
  return destination ? pino(options, destination) : pino(options);
}
