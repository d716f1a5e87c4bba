import { expect } from 'chai';
import { ConfigInvalidError, loadConfig } from '../../src/bootstrap/config.js';

describe('configuration: graph database and readiness', () => {
  it('defaults: no graph database, the database required, remote results cached 5 s', () => {
    const config = loadConfig({});
    expect(config.graph).to.equal(null);
    expect(config.readiness).to.deep.equal({ required: ['database', 'identity_provider'], cacheMs: 5000 });
  });

  it('reads the NEO4J_* settings; the password is kept exactly as given', () => {
    const config = loadConfig({ NEO4J_URI: 'neo4j+s://abcd.databases.neo4j.io', NEO4J_USER: 'bob', NEO4J_PASSWORD: ' pw ', NEO4J_DATABASE: 'movies', NEO4J_TIMEOUT_MS: '500' });
    expect(config.graph).to.deep.equal({ uri: 'neo4j+s://abcd.databases.neo4j.io', user: 'bob', password: ' pw ', database: 'movies', timeoutMs: 500 });
  });

  it('an empty NEO4J_URI means not configured', () => {
    expect(loadConfig({ NEO4J_URI: '' }).graph).to.equal(null);
  });

  it('refuses other schemes, without echoing the URI', () => {
    expect(() => loadConfig({ NEO4J_URI: 'http://neo4j:hunter2@db:7474' }))
      .to.throw(ConfigInvalidError, /^invalid configuration: NEO4J_URI must be a URI with a host and one of the schemes bolt:\/\/, .*\(got a hidden value\)$/)
      .with.property('message')
      .that.does.not.include('hunter2');
  });

  it('READY_REQUIRED: a list, "none", duplicates dropped, unknown names refused', () => {
    expect(loadConfig({ READY_REQUIRED: 'database, graph_database,language_model' }).readiness.required).to.deep.equal(['database', 'graph_database', 'language_model']);
    expect(loadConfig({ READY_REQUIRED: 'none' }).readiness.required).to.deep.equal([]);
    expect(loadConfig({ READY_REQUIRED: 'graph_database,graph_database' }).readiness.required).to.deep.equal(['graph_database']);
    expect(() => loadConfig({ READY_REQUIRED: 'database,neo4j' })).to.throw(ConfigInvalidError, /^invalid configuration: READY_REQUIRED .*\(got "database,neo4j"\)$/);
  });

  it('refuses NEO4J_TIMEOUT_MS and READY_CACHE_MS out of range', () => {
    expect(() => loadConfig({ NEO4J_TIMEOUT_MS: '10' })).to.throw(/NEO4J_TIMEOUT_MS must be an integer from 100 to 60000/);
    expect(() => loadConfig({ READY_CACHE_MS: '-1' })).to.throw(/READY_CACHE_MS must be an integer from 0 to 600000/);
  });
});
