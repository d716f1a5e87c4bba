/** What neo4j-driver reported, reduced to plain data (it crosses a worker boundary). */
export interface DriverFailure {
  code: string;
  message: string;
}

const RULES: [test: (f: DriverFailure) => boolean, detail: string][] = [
  [(f) => f.code === 'Neo.ClientError.Security.Unauthorized', 'authentication failed'],
  [(f) => f.code === 'Neo.ClientError.Security.AuthenticationRateLimit', 'authentication failed (too many attempts; the server is refusing logins for a while)'],
  [(f) => f.code === 'Neo.ClientError.Security.CredentialsExpired', 'authentication failed (the password has expired and must be changed)'],
  [(f) => f.code.startsWith('Neo.ClientError.Security.'), 'authentication failed'],
  [(f) => f.code === 'Neo.ClientError.Database.DatabaseNotFound', 'the configured database (NEO4J_DATABASE) does not exist'],
  [(f) => /ECONNREFUSED/.test(f.message), 'connection refused'],
  [(f) => /ENOTFOUND|EAI_AGAIN/.test(f.message), 'host not found'],
  [(f) => /EHOSTUNREACH|ENETUNREACH|ETIMEDOUT/.test(f.message), 'host unreachable'],
  [(f) => /ECONNRESET|closed by server|Connection was closed/i.test(f.message), 'connection closed by the server'],
  [(f) => /responded HTTP/.test(f.message), 'not a Bolt server (it answered HTTP; the Bolt port is usually 7687)'],
  [(f) => /certificate|SSL|TLS|EPROTO/i.test(f.message), 'TLS handshake failed (check the +s / +ssc scheme and the server certificate)'],
  [(f) => /protocol version|Unknown Bolt protocol/i.test(f.message), 'the server speaks no Bolt version this driver supports'],
  [(f) => /No routing servers available/i.test(f.message), 'no routing server answered'],
];

/**
 * A short, fixed cause for a failed check. Raw driver messages are not shown: they are
 * long, name internal addresses, and a server could echo anything back.
 */
export function describeNeo4jFailure(failure: DriverFailure, timeoutMs: number): string {
  if (/acquisition timed out|Failed to establish connection in/i.test(failure.message)) return `no answer within ${timeoutMs} ms`;
  for (const [test, detail] of RULES) if (test(failure)) return detail;
  const code = /^[A-Za-z][\w.]{0,100}$/.test(failure.code) && failure.code !== 'N/A' ? ` (${failure.code})` : '';
  return `graph database unavailable${code}`;
}

/** True when the failure means the connection may still be hanging inside the driver. */
export function isTimeoutFailure(failure: DriverFailure): boolean {
  return /acquisition timed out|Failed to establish connection in|didn't respond in/i.test(failure.message);
}
