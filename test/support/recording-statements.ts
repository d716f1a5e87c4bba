import type { Sql } from 'sql-template-tag';
import type { Statements } from '../../src/adapters/persistence/postgres/statements.js';

/** A row of nothing stored and nothing raced, for each statement a test records. */
const ANSWERS: Record<string, object> = {
  'messages.append': { claimed: null, existing: null, taken: [], inserted: [], unknown_parents: [], raced: false },
  'replies.begin': { claimed: null, existing: null, taken: null, taken_reply: null, history: [], inserted: [], unknown_parent: false, raced: false },
  'replies.finish': { finished: null, current: null, removed: '0', named: false },
  'messages.page_branch': { owner: null, leaf_found: false, page: [] },
};

/**
 * A stand-in for the database under the PostgreSQL repositories: it keeps each statement they send
 * (text and values, in `sent`) without running it, and answers with a canned row. (The bench's
 * hand-written server takes its page statements from the repository through it.)
 */
export function recordingStatements(sent: Sql[]): Statements {
  return {
    transactional: false,
    async rows(query: Sql) {
      sent.push(query);
      const tag = /^\/\* ([\w.]+) \*\//.exec(query.text)?.[1];
      const answer = tag === undefined ? undefined : ANSWERS[tag];
      if (!answer) throw new Error(`no canned answer for the statement ${tag ?? query.text.slice(0, 40)}`);
      return [answer];
    },
  } as unknown as Statements;
}
