import { pino, type DestinationStream, type LogFn, type Logger } from 'pino';
import type { Config } from './config.js';
import { serializeError } from './error-serializer.js';

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

function withSafeMessage(this: Logger, args: Parameters<LogFn>, method: LogFn): void {
  const [first, second, ...rest] = args as unknown[];
  const error = first instanceof Error ? first : (first as { err?: unknown } | null)?.err;
  if (typeof second === 'string' || !(error instanceof Error)) return method.apply(this, args);
  const { message, type } = serializeError(error);
  return method.apply(this, [first instanceof Error ? { err: first } : first, message ?? type, ...rest] as Parameters<LogFn>);
}

/** JSON lines by default; readable lines when the output is a terminal (or LOG_FORMAT=pretty). */
export function createLogger(config: Pick<Config, 'logLevel' | 'logFormat'>, destination?: DestinationStream): Logger {
  const pretty = !destination && (config.logFormat === 'pretty' || (config.logFormat === 'auto' && process.stdout.isTTY === true));
  const options = {
    level: config.logLevel,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    // Errors keep their class, code and frames; a database error never its statement's values.
    serializers: { err: serializeError, error: serializeError },
    // Without a message of its own, pino would take the error's message as the line's `msg`.
    hooks: { logMethod: withSafeMessage },
    ...(pretty ? { transport: { target: 'pino-pretty', options: { colorize: true, translateTime: 'SYS:HH:MM:ss.l' } } } : {}),
  };
  return destination ? pino(options, destination) : pino(options);
}
