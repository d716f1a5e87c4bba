import { expect } from 'chai';
import { ConfigInvalidError, loadConfig } from '../../src/bootstrap/config.js';

describe('transport settings', () => {
  it('default: plain HTTP, HSTS for 180 days without subdomains, no trusted proxy', () => {
    expect(loadConfig({}).transport).to.deep.equal({
      tls: null,
      hsts: { maxAgeS: 15_552_000, includeSubDomains: false },
      trustProxy: [],
    });
  });

  it('reads the TLS files, HSTS and the trusted proxies', () => {
    const transport = loadConfig({
      TLS_CERT_FILE: '/etc/tls/fullchain.pem',
      TLS_KEY_FILE: '/etc/tls/privkey.pem',
      TLS_CA_FILE: '/etc/tls/chain.pem',
      HSTS_MAX_AGE_S: '63072000',
      HSTS_INCLUDE_SUBDOMAINS: 'true',
      TRUST_PROXY: ' 127.0.0.1, 10.0.0.0/8 ,::1,private,',
    }).transport;
    expect(transport).to.deep.equal({
      tls: { certFile: '/etc/tls/fullchain.pem', keyFile: '/etc/tls/privkey.pem', caFile: '/etc/tls/chain.pem' },
      hsts: { maxAgeS: 63_072_000, includeSubDomains: true },
      trustProxy: ['127.0.0.1', '10.0.0.0/8', '::1', 'private'],
    });
  });

  for (const [environment, line] of [
    [{ TLS_CERT_FILE: '/c.pem' }, 'invalid configuration: TLS_CERT_FILE and TLS_KEY_FILE go together: TLS_KEY_FILE is not set'],
    [{ TLS_KEY_FILE: '/k.pem' }, 'invalid configuration: TLS_CERT_FILE and TLS_KEY_FILE go together: TLS_CERT_FILE is not set'],
    [{ TLS_CA_FILE: '/ca.pem' }, 'invalid configuration: TLS_CA_FILE needs TLS_CERT_FILE and TLS_KEY_FILE'],
    [{ HSTS_MAX_AGE_S: '-1' }, 'invalid configuration: HSTS_MAX_AGE_S must be an integer from 0 to 315360000 (got "-1")'],
    [{ HSTS_INCLUDE_SUBDOMAINS: 'yes' }, 'invalid configuration: HSTS_INCLUDE_SUBDOMAINS must be true or false (got "yes")'],
    [
      { TRUST_PROXY: '10.0.0.0/8, proxy.internal' },
      'invalid configuration: TRUST_PROXY "proxy.internal" is neither an address, a CIDR range nor one of loopback, private, linklocal (got "10.0.0.0/8, proxy.internal")',
    ],
  ] as const) {
    it(`refuses ${JSON.stringify(environment)} with one line`, () => {
      expect(() => loadConfig(environment)).to.throw(ConfigInvalidError).with.property('message', line);
    });
  }
});
