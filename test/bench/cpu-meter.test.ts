import { expect } from 'chai';
import pg from 'pg';
import { serviceCpuMeter } from '../../bench/support/cpu-meter.js';
import { ADMIN_URL, requirePostgres } from '../support/postgres.js';

describe('bench: the CPU meter of a service and its PostgreSQL backends', function () {
  const application = `cpu-meter-test-${process.pid}`;
  let monitor: pg.Pool;
  let database: string;

  before(async function () {
    await requirePostgres(this);
    monitor = new pg.Pool({ connectionString: ADMIN_URL, max: 1 });
    database = (await monitor.query<{ name: string }>('select current_database() as name')).rows[0]!.name;
  });

  after(async () => {
    await monitor?.end();
  });

  const connect = async () => {
    const client = new pg.Client({ connectionString: ADMIN_URL, application_name: application });
    await client.connect();
    return client;
  };

  it("counts the CPU time of the backends with the service's application name, and the service's own", async function () {
    const client = await connect();
    try {
      const meter = serviceCpuMeter(process.pid, monitor, database, application);
      await meter.start();
      // Work for the backend (well above the 10 ms tick) and a little for this process.
      await client.query('select count(*) from generate_series(1, 5000000)');
      const reading = await meter.stop();
      if ('unreadable' in reading) this.skip(); // PostgreSQL in another process namespace
      expect(reading.seconds).to.be.greaterThan(0.05);
    } finally {
      await client.end();
    }
  });

  it('says the time cannot be read when a backend ended during the run (its CPU time went with it)', async () => {
    const client = await connect();
    const meter = serviceCpuMeter(process.pid, monitor, database, application);
    await meter.start();
    await client.end();
    for (let i = 0; i < 50 && (await monitor.query('select 1 from pg_stat_activity where application_name = $1', [application])).rowCount! > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const reading = await meter.stop();
    expect(reading).to.have.property('unreadable');
  });
});
