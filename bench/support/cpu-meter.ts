import { readFileSync } from 'node:fs';
import pg from 'pg';

/**
 * The CPU time a service spends over a load run: its own process and the PostgreSQL backends
 * serving it, read from /proc (so only where the database runs on this machine, in the same
 * process namespace). Unlike a rate, it does not follow the share of the cores the service got
 * while others worked; it still follows how fast a core ran for it (others' work on the same
 * core or its caches slows ours), so it is noisy too on a crowded machine.
 *
 * Left out: the load generator, and PostgreSQL's background processes (WAL writer,
 * checkpointer), which serve every database at once.
 */
export interface CpuMeter {
  /** Never fails: what cannot be read is told by stop(). */
  start(): Promise<void>;
  /** CPU seconds since start(), or why they could not all be read. */
  stop(): Promise<{ seconds: number } | { unreadable: string }>;
}

/** The kernel's clock ticks per second for /proc times (USER_HZ), 100 on every Linux PostgreSQL runs on. */
const TICKS_PER_SECOND = 100;

/** utime + stime of a process (all its threads), in ticks; null when there is no such process. */
function cpuTicks(pid: number): number | null {
  try {
    // The command name, in parentheses, may hold spaces: the fields are counted after it.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

/** A backend is read only when its process title names the database: a pid of another namespace (a container) is not ours. */
function isBackendOf(pid: number, database: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(` ${database} `);
  } catch {
    return false;
  }
}

/**
 * The meter of a service started by the bench (`pid`), whose connections to `database` carry the
 * application name `applicationName`; `monitor` (an admin connection of its own) lists them.
 */
export function serviceCpuMeter(pid: number, monitor: pg.Pool, database: string, applicationName = 'assistant-backend'): CpuMeter {
  let before = new Map<number, number>();
  let serviceBefore = 0;
  let failure: string | null = null;
  const backends = async () =>
    (await monitor.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1 and application_name = $2', [database, applicationName])).rows.map((row) => row.pid);
  const snapshot = async () => {
    const ticks = new Map<number, number>();
    for (const backend of await backends()) {
      const value = isBackendOf(backend, database) ? cpuTicks(backend) : null;
      if (value === null) throw new Error(`backend ${backend} of ${database} cannot be read in /proc (the database runs elsewhere?)`);
      ticks.set(backend, value);
    }
    return ticks;
  };
  return {
    async start() {
      failure = null;
      try {
        before = await snapshot();
      } catch (error) {
        failure = error instanceof Error ? error.message : String(error);
      }
      serviceBefore = cpuTicks(pid) ?? Number.NaN;
    },
    async stop() {
      if (failure !== null) return { unreadable: failure };
      const service = cpuTicks(pid);
      let after: Map<number, number>;
      try {
        after = await snapshot();
      } catch (error) {
        return { unreadable: error instanceof Error ? error.message : String(error) };
      }
      if (service === null || Number.isNaN(serviceBefore)) return { unreadable: `the service's process ${pid} cannot be read in /proc` };
      const gone = [...before.keys()].filter((backend) => !after.has(backend));
      // A connection closed during the run took its CPU time with it.
      if (gone.length > 0) return { unreadable: `${gone.length} backend(s) of ${database} ended during the run` };
      let ticks = service - serviceBefore;
      for (const [backend, value] of after) ticks += value - (before.get(backend) ?? 0);
      return { seconds: ticks / TICKS_PER_SECOND };
    },
  };
}
