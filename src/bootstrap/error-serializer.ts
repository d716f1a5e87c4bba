/**
 * How errors appear in the log. Database drivers put the failed statement, with the user's text
 * and metadata interpolated, into the error's message (knex: `insert into messages ... values
 * ('…') - <reason>`), and add `detail` (`Key (message_id)=(…) already exists`), `where`,
 * `parameters` or `bindings`; pino's standard serializer would log all of it, message and stack.
 * So a database error is logged as its class, its SQLSTATE code and the kind of statement that
 * failed (`insert into messages`), with schema names and the stack's frames; any other error as
 * its class, message, code and frames. Nothing else an error carries is copied.
 */

export interface SerializedError {
  type: string;
  message?: string;
  code?: string;
  statement?: string;
  table?: string;
  column?: string;
  constraint?: string;
  routine?: string;
  stack: string;
  cause?: SerializedError;
}

/** Properties only errors from a SQL driver or query builder carry. */
const DATABASE_MARKS = ['sql', 'sqlState', 'bindings', 'parameters', 'routine', 'severity', 'internalQuery', 'where'];
/** knex's message: the statement, its values inlined, then " - " and the server's reason. */
const SQL_MESSAGE = /^\s*(?:\/\*\s*[\w.-]+\s*\*\/\s*)?(select|insert|update|delete|with|merge|begin|commit|rollback|savepoint|release|set|lock|create|alter|drop|truncate)\b/i;
/** A statement named by the code that sent it: a leading comment, `/* messages.append *\/ with ...`. */
const NAMED = /^\s*\/\*\s*([\w.-]{1,64})\s*\*\//;
const STATEMENT = /^\s*(insert\s+into|update|delete\s+from|merge\s+into|truncate(?:\s+table)?)\s+("?[A-Za-z_][\w.$"]*)|^\s*(select|with)\b[^']*?\sfrom\s+("?[A-Za-z_][\w.$"]*)|^\s*(\w+)/i;
/** Schema names a server reports; identifiers, never values. */
const IDENTIFIER = /^[A-Za-z_][\w$.]{0,127}$/;

type Fields = Record<string, unknown>;

export function isDatabaseError(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const fields = error as Fields;
  if (DATABASE_MARKS.some((mark) => fields[mark] !== undefined)) return true;
  // pg's DatabaseError: the server's error, with its SQLSTATE.
  if (error.constructor?.name === 'DatabaseError' && typeof fields.code === 'string') return true;
  return typeof fields.message === 'string' && SQL_MESSAGE.test(fields.message) && fields.message.includes(' - ');
}

/**
 * The failed statement's name (`messages.append`, given by the repository that sent it), else its
 * kind and table (`insert into messages`, `select from users`), never its values.
 */
export function statementKind(sql: string): string | undefined {
  if (!SQL_MESSAGE.test(sql)) return undefined;
  const named = NAMED.exec(sql);
  if (named) return named[1];
  const match = STATEMENT.exec(sql);
  if (!match) return undefined;
  const [, write, writeTable, read, readTable, keyword] = match;
  const words = (write ?? read ?? keyword ?? '').toLowerCase().split(/\s+/);
  const table = (writeTable ?? readTable)?.replaceAll('"', '');
  if (read) return `${read.toLowerCase()} from ${table}`;
  return [...words, table].filter(Boolean).join(' ');
}

/** Only the stack's `at …` lines, under the error's class: the first line repeats the message. */
function framesOf(error: Fields, type: string): string {
  const frames = String(error.stack ?? '')
    .split('\n')
    .filter((line) => /^\s+at /.test(line));
  return [type, ...frames].join('\n');
}

const identifier = (value: unknown) => (typeof value === 'string' && IDENTIFIER.test(value) ? value : undefined);

export function serializeError(error: unknown, depth = 0): SerializedError {
  if (typeof error !== 'object' || error === null) return { type: typeof error, stack: '' };
  const fields = error as Fields;
  // The class, unless it is a bare Error: pg's DatabaseError names itself "error".
  const className = error.constructor?.name;
  const type = (className !== 'Error' && className !== 'Object' ? identifier(className) : undefined) ?? identifier(fields.name) ?? 'Error';
  const code = typeof fields.code === 'string' || typeof fields.code === 'number' ? String(fields.code) : undefined;
  const serialized: SerializedError = isDatabaseError(error)
    ? {
        type,
        code: typeof fields.sqlState === 'string' ? fields.sqlState : code,
        statement: statementKind(String(fields.sql ?? fields.message ?? '')),
        table: identifier(fields.table),
        column: identifier(fields.column),
        constraint: identifier(fields.constraint),
        routine: identifier(fields.routine),
        stack: framesOf(fields, type),
      }
    : { type, message: String(fields.message ?? ''), code, stack: String(fields.stack ?? type) };
  for (const key of Object.keys(serialized) as (keyof SerializedError)[]) if (serialized[key] === undefined) delete serialized[key];
  if (fields.cause !== undefined && fields.cause !== error && depth < 5) serialized.cause = serializeError(fields.cause, depth + 1);
  return serialized;
}
