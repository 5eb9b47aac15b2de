import { blockedReason, checkUrl, parseAllowCidrs } from './address-rules';

describe('checkUrl', () => {
  it.each([
    ['http://example.com/a.jpg', /must use https/],
    ['ftp://example.com/a.jpg', /must use https/],
    ['file:///etc/passwd', /must use https/],
    ['data:image/png;base64,AAAA', /must use https/],
    ['gopher://example.com/', /must use https/],
    ['not a url', /not a valid absolute URL/],
    ['//example.com/a.jpg', /not a valid absolute URL/],
    ['https://user:pw@example.com/a.jpg', /credentials/],
    ['https://localhost/a.jpg', /local host name/],
    ['https://LOCALHOST./a.jpg', /local host name/],
    ['https://api.localhost/a.jpg', /local host name/],
    ['https://printer.local/a.jpg', /local host name/],
    ['https://metadata.google.internal/a', /local host name/],
    ['https://router.home.arpa/', /local host name/],
    ['https://intranet/a.jpg', /not a public, fully qualified name/],
    ['https://127.0.0.1/a.jpg', /loopback/],
    ['https://127.1/a.jpg', /loopback/],
    ['https://2130706433/a.jpg', /loopback/],
    ['https://0x7f000001/a.jpg', /loopback/],
    ['https://0x7f.0.0.1/a.jpg', /loopback/],
    ['https://0177.0.0.1/a.jpg', /loopback/],
    ['https://017700000001/a.jpg', /loopback/],
    ['https://0/a.jpg', /this-network/],
    ['https://0.0.0.0/a.jpg', /this-network/],
    ['https://10.0.0.1/a.jpg', /private/],
    ['https://172.16.5.4/a.jpg', /private/],
    ['https://172.31.255.255/a.jpg', /private/],
    ['https://192.168.1.1/a.jpg', /private/],
    ['https://169.254.169.254/latest/meta-data', /link-local/],
    ['https://100.64.0.1/a.jpg', /carrier-grade NAT/],
    ['https://100.127.255.254/a.jpg', /carrier-grade NAT/],
    ['https://224.0.0.1/a.jpg', /multicast/],
    ['https://239.255.255.250/a.jpg', /multicast/],
    ['https://240.0.0.1/a.jpg', /reserved/],
    ['https://255.255.255.255/a.jpg', /reserved/],
    ['https://192.0.2.10/a.jpg', /documentation/],
    ['https://198.18.0.1/a.jpg', /benchmarking/],
    ['https://[::1]/a.jpg', /loopback/],
    ['https://[::]/a.jpg', /unspecified/],
    ['https://[0:0:0:0:0:0:0:1]/a.jpg', /loopback/],
    ['https://[::ffff:127.0.0.1]/a.jpg', /IPv4-mapped.*loopback/],
    ['https://[::ffff:7f00:1]/a.jpg', /IPv4-mapped.*loopback/],
    ['https://[::ffff:10.1.2.3]/a.jpg', /IPv4-mapped.*private/],
    ['https://[::ffff:a9fe:a9fe]/a.jpg', /IPv4-mapped.*link-local/],
    ['https://[::127.0.0.1]/a.jpg', /IPv4-compatible/],
    ['https://[64:ff9b::7f00:1]/a.jpg', /NAT64.*loopback/],
    ['https://[2002:7f00:1::]/a.jpg', /6to4.*loopback/],
    ['https://[fc00::1]/a.jpg', /unique-local/],
    ['https://[fd12:3456::1]/a.jpg', /unique-local/],
    ['https://[fe80::1]/a.jpg', /link-local/],
    ['https://[fec0::1]/a.jpg', /site-local/],
    ['https://[ff02::1]/a.jpg', /multicast/],
    ['https://[2001:db8::1]/a.jpg', /documentation/],
    ['https://[2001:0:4136:e378::1]/a.jpg', /Teredo/],
    ['https://[100::1]/a.jpg', /discard-only/],
    ['https://[4000::1]/a.jpg', /not a global unicast/],
  ])('refuses %s', (url, reason) => {
    const result = checkUrl(url);
    expect(result.ok).toBe(false);
    expect(result.ok === false && result.reason).toMatch(reason);
  });

  it.each([
    'https://example.com/a.jpg',
    'https://cdn.example.com:8443/path/a.mp4?x=1',
    'https://93.184.216.34/a.jpg',
    'https://[2606:2800:220:1:248:1893:25c8:1946]/a.jpg',
    'https://[::ffff:93.184.216.34]/a.jpg',
    'https://[2002:5db8:d822::1]/a.jpg',
  ])('accepts %s', (url) => {
    expect(checkUrl(url).ok).toBe(true);
  });
});

describe('blockedReason', () => {
  it('lets an allow list exempt a range, and only that range', () => {
    const allow = parseAllowCidrs('127.0.0.1/32');
    expect(blockedReason('127.0.0.1', allow)).toBeNull();
    expect(blockedReason('127.0.0.2', allow)).toMatch(/loopback/);
    expect(blockedReason('::1', allow)).toMatch(/loopback/);
  });

  it('names the variable when the allow list is malformed', () => {
    expect(() => parseAllowCidrs('127.0.0.1/40')).toThrow(/IMPORT_ALLOW_CIDRS/);
    expect(() => parseAllowCidrs('nope')).toThrow(/IMPORT_ALLOW_CIDRS/);
  });
});
