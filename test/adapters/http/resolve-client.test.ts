import { expect } from 'chai';
import { resolveClient, type Peer } from '../../../src/adapters/http/resolve-client.js';
import { parseAddress, TrustedProxies } from '../../../src/adapters/http/trusted-proxies.js';

const headersOf = (headers: Record<string, string>) => (name: string) => headers[name.toLowerCase()] ?? '';
const peer = (address: string, encrypted = false): Peer => ({ address, encrypted, host: 'api.example.com' });
const trusting = (...entries: string[]) => TrustedProxies.parse(entries);

describe('TrustedProxies', () => {
  it('matches addresses, CIDR ranges of both families and the shortcuts', () => {
    const trusted = trusting('192.0.2.10', '10.0.0.0/8', '2001:db8::/32', 'loopback');
    for (const address of ['192.0.2.10', '10.1.2.3', '2001:db8::7', '127.0.0.1', '127.8.8.8', '::1', '::ffff:10.9.9.9', '::ffff:127.0.0.1']) {
      expect(trusted.trusts(parseAddress(address)), address).to.equal(true);
    }
    for (const address of ['192.0.2.11', '11.0.0.1', '2001:db9::1', '::2', '::ffff:192.0.2.11', '172.16.0.1']) {
      expect(trusted.trusts(parseAddress(address)), address).to.equal(false);
    }
    expect(trusted.trusts(null)).to.equal(false);
  });

  it('private covers RFC 1918 and unique-local IPv6; linklocal the link-local ranges', () => {
    const privateRanges = trusting('private');
    for (const address of ['10.0.0.1', '172.16.5.4', '172.31.255.255', '192.168.1.1', 'fd12::1']) expect(privateRanges.trusts(parseAddress(address)), address).to.equal(true);
    for (const address of ['172.32.0.1', '8.8.8.8', '127.0.0.1', '2001:db8::1']) expect(privateRanges.trusts(parseAddress(address)), address).to.equal(false);
    expect(trusting('linklocal').trusts(parseAddress('169.254.1.1'))).to.equal(true);
    expect(trusting('linklocal').trusts(parseAddress('fe80::1'))).to.equal(true);
  });

  it('an IPv4-mapped range means its IPv4 range', () => {
    expect(trusting('::ffff:10.0.0.0/104').trusts(parseAddress('10.20.30.40'))).to.equal(true);
    expect(trusting('::ffff:10.0.0.0/104').trusts(parseAddress('11.0.0.1'))).to.equal(false);
  });

  for (const entry of ['10.0.0.0/33', 'example.com', '10.0.0', '010.0.0.1', '0x7f.1/8', '*', 'fe80::/129', '10.0.0.0/']) {
    it(`refuses ${JSON.stringify(entry)} naming it`, () => {
      expect(() => TrustedProxies.parse([entry])).to.throw(TypeError, `"${entry}" is neither an address, a CIDR range nor one of loopback, private, linklocal`);
    });
  }

  it('reads addresses with ports and brackets, and nothing else', () => {
    expect(parseAddress('192.0.2.43:47011')?.toString()).to.equal('192.0.2.43');
    expect(parseAddress('[2001:db8:cafe::17]:4711')?.toString()).to.equal('2001:db8:cafe::17');
    expect(parseAddress('[2001:db8::1]')?.toString()).to.equal('2001:db8::1');
    for (const text of ['unknown', '_hidden', '', 'a.b.c.d', '1.2.3.4.5', '10.0.0', '0x7f.0.0.1', '<script>']) expect(parseAddress(text), text).to.equal(null);
  });
});

describe('resolveClient', () => {
  it('without trusted proxies: the socket, whatever the headers say', () => {
    const forged = headersOf({ 'x-forwarded-for': '203.0.113.9', 'x-forwarded-proto': 'https', forwarded: 'for=198.51.100.1;proto=https' });
    expect(resolveClient(peer('127.0.0.1'), forged, undefined)).to.deep.equal({ address: '127.0.0.1', protocol: 'http', host: 'api.example.com' });
    expect(resolveClient(peer('::ffff:127.0.0.1', true), forged, undefined)).to.deep.equal({ address: '127.0.0.1', protocol: 'https', host: 'api.example.com' });
  });

  it('from a peer that is not trusted: the headers are ignored', () => {
    const forged = headersOf({ 'x-forwarded-for': '203.0.113.9', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' });
    expect(resolveClient(peer('192.0.2.50'), forged, trusting('10.0.0.0/8'))).to.deep.equal({ address: '192.0.2.50', protocol: 'http', host: 'api.example.com' });
  });

  it('from a trusted proxy: its X-Forwarded-For, -Proto and -Host', () => {
    const headers = headersOf({ 'x-forwarded-for': '203.0.113.9', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'chat.example.com' });
    expect(resolveClient(peer('10.0.0.2'), headers, trusting('10.0.0.0/8'))).to.deep.equal({ address: '203.0.113.9', protocol: 'https', host: 'chat.example.com' });
  });

  it('walks X-Forwarded-For from the right, skipping trusted hops, and stops at the first untrusted one', () => {
    // The client claims 198.51.100.66; the edge proxy saw 203.0.113.9; an inner proxy 10.1.2.3 forwarded it.
    const headers = headersOf({ 'x-forwarded-for': '198.51.100.66, 203.0.113.9, 10.1.2.3' });
    expect(resolveClient(peer('127.0.0.1'), headers, trusting('loopback', '10.0.0.0/8')).address).to.equal('203.0.113.9');
    // With every hop trusted, the leftmost is the client.
    expect(resolveClient(peer('127.0.0.1'), headers, trusting('loopback', '10.0.0.0/8', '203.0.113.0/24')).address).to.equal('198.51.100.66');
  });

  it('pairs a Proto list with the address list hop by hop; otherwise the last Proto applies', () => {
    const paired = headersOf({ 'x-forwarded-for': '203.0.113.9, 10.1.2.3', 'x-forwarded-proto': 'https, http' });
    expect(resolveClient(peer('127.0.0.1'), paired, trusting('loopback', '10.0.0.0/8')).protocol).to.equal('https');
    const single = headersOf({ 'x-forwarded-for': '198.51.100.66, 203.0.113.9', 'x-forwarded-proto': 'https' });
    expect(resolveClient(peer('127.0.0.1'), single, trusting('loopback'))).to.include({ address: '203.0.113.9', protocol: 'https' });
    const odd = headersOf({ 'x-forwarded-for': '203.0.113.9', 'x-forwarded-proto': 'gopher', 'x-forwarded-host': 'bad host/with space' });
    expect(resolveClient(peer('127.0.0.1', true), odd, trusting('loopback'))).to.deep.equal({ address: '203.0.113.9', protocol: 'https', host: 'api.example.com' });
  });

  it('a trusted proxy that sends only X-Forwarded-Proto keeps its own address as the client', () => {
    expect(resolveClient(peer('127.0.0.1'), headersOf({ 'x-forwarded-proto': 'https' }), trusting('loopback'))).to.include({ address: '127.0.0.1', protocol: 'https' });
  });

  it('reads RFC 7239 Forwarded when there is no X-Forwarded-For', () => {
    const headers = headersOf({ forwarded: 'for="[2001:db8:cafe::17]:4711";proto=https;host=chat.example.com, for=10.1.2.3;proto=http' });
    expect(resolveClient(peer('127.0.0.1'), headers, trusting('loopback', '10.0.0.0/8'))).to.deep.equal({
      address: '2001:db8:cafe::17',
      protocol: 'https',
      host: 'chat.example.com',
    });
    expect(resolveClient(peer('127.0.0.1'), headersOf({ forwarded: 'for=unknown;proto=https' }), trusting('loopback'))).to.include({ address: 'unknown', protocol: 'https' });
    expect(resolveClient(peer('127.0.0.1'), headersOf({ forwarded: 'proto=https' }), trusting('loopback'))).to.include({ address: '127.0.0.1', protocol: 'https' });
  });

  it('X-Forwarded-For wins over a Forwarded header a client smuggled past the proxy', () => {
    const headers = headersOf({ forwarded: 'for=198.51.100.66;proto=https', 'x-forwarded-for': '203.0.113.9', 'x-forwarded-proto': 'http' });
    expect(resolveClient(peer('127.0.0.1'), headers, trusting('loopback'))).to.include({ address: '203.0.113.9', protocol: 'http' });
  });

  it('an unreadable Forwarded or X-Forwarded-For entry does not become the address', () => {
    expect(resolveClient(peer('127.0.0.1'), headersOf({ forwarded: 'for=1.2.3.4;;;=' }), trusting('loopback')).address).to.equal('127.0.0.1');
    expect(resolveClient(peer('127.0.0.1'), headersOf({ 'x-forwarded-for': '<script>alert(1)</script>' }), trusting('loopback')).address).to.equal('unknown');
    expect(resolveClient(peer('127.0.0.1'), headersOf({ 'x-forwarded-for': '203.0.113.9:55012' }), trusting('loopback')).address).to.equal('203.0.113.9');
  });
});
