import pg from 'pg';
import { v7 as uuidv7 } from 'uuid';

/** A fresh PostgreSQL database per server under test, made and dropped through an admin connection. */
export interface BenchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

const live = new Map<string, BenchDatabase>();

/** Runs `work` on a connection of its own to `url`, closed after it, whatever happens. */
export async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>, connectionTimeoutMillis?: number): Promise<T> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function admin(adminUrl: string, sql: string): Promise<void> {
  await withClient(adminUrl, (client) => client.query(sql), 3000);
}

export async function postgresReachable(adminUrl: string): Promise<boolean> {
  return admin(adminUrl, 'select 1').then(() => true, () => false);
}

/** `template`: the name of a database to copy (nobody may be connected to it meanwhile). */
export async function createDatabase(adminUrl: string, purpose: string, template?: string): Promise<BenchDatabase> {
  const name = `bench_${purpose}_${uuidv7().replaceAll('-', '').slice(-12)}`;
  await admin(adminUrl, `create database "${name}"${template ? ` template "${template}"` : ''}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database: BenchDatabase = {
    name,
    url: url.toString(),
    drop: async () => {
      live.delete(name);
      await admin(adminUrl, `drop database if exists "${name}" with (force)`);
    },
  };
  live.set(name, database);
  return database;
}

/** For an interrupted run: drops whatever databases are still there. */
export async function dropAllDatabases(): Promise<void> {
  await Promise.allSettled([...live.values()].map((database) => database.drop()));
}

/** A host and port to put a proxy in front of. */
export function serverOf(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname, port: Number(parsed.port || 5432) };
}

export interface SeedPlan {
  /** Conversations that exist already (made through the service's own API), with their owners. */
  conversations: { conversationId: string; userId: string }[];
  /** Message numbers to add to each: `first..last`, less `skip` if given. */
  first: number;
  last: number;
  skip?: [number, number];
  /** Message number i is created at `start + i` milliseconds. */
  start: Date;
}

/**
 * Adds messages to existing conversations in one `insert ... select generate_series`, the
 * quick way to make a conversation of a million messages. Only the messages table's columns
 * are assumed (those of the service's migration); users and conversations are left to the
 * service, which made them.
 */
export async function seedMessages(databaseUrl: string, plan: SeedPlan): Promise<void> {
  await withClient(databaseUrl, async (client) => {
    await client.query(
      `insert into messages (message_id, conversation_id, user_id, role, text, created_at, metadata)
       select c.conversation_id || '-seed-' || i, c.conversation_id, c.user_id,
              case when i % 2 = 0 then 'assistant' else 'user' end,
              'Seeded message ' || i || ': the quick brown fox jumps over the lazy dog.',
              $3::timestamptz + i * interval '1 millisecond', '{}'::jsonb
       from unnest($1::text[], $2::text[]) as c(conversation_id, user_id)
       cross join generate_series($4::int, $5::int) as i
       where i not between $6::int and $7::int`,
      [
        plan.conversations.map((c) => c.conversationId),
        plan.conversations.map((c) => c.userId),
        plan.start,
        plan.first,
        plan.last,
        plan.skip?.[0] ?? 0,
        plan.skip?.[1] ?? -1,
      ],
    );
    // One branch per conversation, as the service itself would have written it: each message
    // follows the one before it, and the last is the head.
    await client.query(
      `with ordered as (
         select message_id, conversation_id, seq,
                lag(message_id) over (partition by conversation_id order by created_at, seq) as parent,
                lag(seq) over (partition by conversation_id order by created_at, seq) as parent_seq
         from messages where conversation_id = any($1::text[])),
       linked as (
         update messages m set parent_id = o.parent from ordered o
         where m.message_id = o.message_id and m.parent_id is distinct from o.parent returning 1)
       update conversations c set
         head_id = (select message_id from messages m where m.conversation_id = c.conversation_id order by created_at desc, seq desc limit 1),
         -- one chain; read in insertion order only where that is its order (as the migration decides)
         forked = exists (select 1 from ordered o where o.conversation_id = c.conversation_id and o.parent_seq > o.seq)
       where c.conversation_id = any($1::text[])`,
      [plan.conversations.map((c) => c.conversationId)],
    );
    await client.query('analyze messages');
  });
}
