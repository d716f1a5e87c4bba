/** The URI schemes neo4j-driver understands: direct (bolt) or routed (neo4j), plain, TLS (+s) or TLS with any certificate (+ssc). */
export const NEO4J_SCHEMES = ['bolt', 'bolt+s', 'bolt+ssc', 'neo4j', 'neo4j+s', 'neo4j+ssc'] as const;

export interface Neo4jUri {
  /** The URI without user name and password: what the driver is given, and all that is ever shown or logged. */
  safe: string;
  /** Credentials found in the URI's userinfo, percent-decoded. */
  username: string | undefined;
  password: string | undefined;
}

export class Neo4jUriInvalidError extends Error {}

/** Splits credentials off a NEO4J_URI; the error never repeats the URI, which may hold a password. */
export function parseNeo4jUri(raw: string): Neo4jUri {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Neo4jUriInvalidError('is not a valid URI');
  }
  const scheme = url.protocol.replace(/:$/, '');
  if (!(NEO4J_SCHEMES as readonly string[]).includes(scheme)) {
    throw new Neo4jUriInvalidError(`must start with ${NEO4J_SCHEMES.map((s) => `${s}://`).join(', ')}`);
  }
  if (!url.hostname) throw new Neo4jUriInvalidError('has no host');
  const decode = (value: string) => (value === '' ? undefined : decodeURIComponent(value));
  const username = decode(url.username);
  const password = decode(url.password);
  url.username = '';
  url.password = '';
  return { safe: url.toString(), username, password };
}
