import { expect } from 'chai';
import { describeNeo4jFailure, isTimeoutFailure } from '../../../src/adapters/graph/neo4j-failure-detail.js';
import { Neo4jUriInvalidError, parseNeo4jUri } from '../../../src/adapters/graph/neo4j-uri.js';

describe('parseNeo4jUri', () => {
  it('splits percent-decoded credentials off, leaving a URI safe to show', () => {
    expect(parseNeo4jUri('neo4j+s://bob:s%40cret%20x@abcd1234.databases.neo4j.io')).to.deep.equal({
      safe: 'neo4j+s://abcd1234.databases.neo4j.io',
      username: 'bob',
      password: 's@cret x',
    });
    expect(parseNeo4jUri('bolt://localhost:7687')).to.deep.equal({ safe: 'bolt://localhost:7687', username: undefined, password: undefined });
  });

  for (const scheme of ['bolt', 'bolt+s', 'bolt+ssc', 'neo4j', 'neo4j+s', 'neo4j+ssc']) {
    it(`accepts ${scheme}://`, () => {
      expect(parseNeo4jUri(`${scheme}://db.example:7687`).safe).to.equal(`${scheme}://db.example:7687`);
    });
  }

  for (const bad of ['http://u:hunter2@db:7474', 'localhost:7687', 'bolt://', 'not a uri hunter2']) {
    it(`refuses ${JSON.stringify(bad)} without repeating it`, () => {
      expect(() => parseNeo4jUri(bad)).to.throw(Neo4jUriInvalidError).with.property('message').that.does.not.include('hunter2');
    });
  }
});

describe('describeNeo4jFailure', () => {
  const cases: [code: string, message: string, detail: string][] = [
    ['Neo.ClientError.Security.Unauthorized', 'The client is unauthorized due to authentication failure.', 'authentication failed'],
    ['ServiceUnavailable', 'Failed to connect to server. ... Caused by: connect ECONNREFUSED 127.0.0.1:1', 'connection refused'],
    ['ServiceUnavailable', 'Could not perform discovery. No routing servers available. <- ... getaddrinfo ENOTFOUND db.invalid', 'host not found'],
    ['ServiceUnavailable', 'Could not perform discovery. No routing servers available.', 'no routing server answered'],
    ['N/A', 'Connection acquisition timed out in 2000 ms. Pool status: ...', 'no answer within 2000 ms'],
    ['ServiceUnavailable', 'Server responded HTTP. Make sure you are not trying to connect to the http endpoint', 'not a Bolt server (it answered HTTP; the Bolt port is usually 7687)'],
    ['Neo.ClientError.Database.DatabaseNotFound', 'Database does not exist', 'the configured database (NEO4J_DATABASE) does not exist'],
    ['Neo.TransientError.General.Whatever', 'something new', 'graph database unavailable (Neo.TransientError.General.Whatever)'],
    ['', 'something else entirely', 'graph database unavailable'],
  ];
  for (const [code, message, detail] of cases) {
    it(`${code || '(no code)'}: ${message.slice(0, 40)}... -> ${detail}`, () => {
      expect(describeNeo4jFailure({ code, message }, 2000)).to.equal(detail);
    });
  }

  it('knows which failures may leave a socket hanging in the driver', () => {
    expect(isTimeoutFailure({ code: 'N/A', message: 'Connection acquisition timed out in 300 ms.' })).to.equal(true);
    expect(isTimeoutFailure({ code: 'ServiceUnavailable', message: 'connect ECONNREFUSED' })).to.equal(false);
  });
});
