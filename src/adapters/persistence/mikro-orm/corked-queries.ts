import pg from 'pg';

/**
 * pg sends the messages of a parameterized query (Parse, Bind, Describe, Execute, Sync) as
 * separate writes, each a system call and a wake-up of the server. Corked, they leave the
 * socket as one write: the same bytes, the same round trip, less CPU on both sides.
 */
type Submittable = { submit(connection: { stream: NodeJS.WritableStream & { cork(): void; uncork(): void } }): unknown };
const prototype = (pg as unknown as { Query: { prototype: Submittable & { corked?: boolean } } }).Query.prototype;

export function corkQueries(): void {
  if (prototype.corked) return;
  const submit = prototype.submit;
  prototype.submit = function (this: Submittable, connection) {
    const { stream } = connection;
    stream.cork();
    try {
      return submit.call(this, connection);
    } finally {
      stream.uncork();
    }
  };
  prototype.corked = true;
}
