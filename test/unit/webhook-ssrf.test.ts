import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import {
  checkWebhookUrl,
  createGuardedDispatcher,
  isForbiddenAddress,
  parseRetryAfter,
  postWebhook,
  type HostLookup,
} from '../../src/platform/http-client/ssrf.js';

// SPEC "Webhook endpoint and delivery": the url is a public HTTPS address;
// local and private addresses are rejected — at registration and, because DNS
// answers change, again on every connection.

interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

interface Receiver {
  port: number;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A real HTTP receiver on 127.0.0.1 that records what reaches it. */
async function startReceiver(respond: (response: ServerResponse) => void = (response) => response.end('ok')): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      requests.push({ method: incoming.method ?? '', url: incoming.url ?? '', headers: incoming.headers, body: Buffer.concat(chunks) });
      respond(response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = async (): Promise<void> => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  cleanups.push(close);
  return { port: (server.address() as AddressInfo).port, requests, close };
}

function guardedDispatcher(options: { allowPrivate: boolean; lookup?: HostLookup }): Agent {
  const dispatcher = createGuardedDispatcher({ connectTimeoutMs: 2_000, ...options });
  cleanups.push(() => dispatcher.destroy());
  return dispatcher;
}

/** A resolver that knows only the names it is given, and counts its calls. */
function fakeLookup(table: Record<string, string[]>): HostLookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (hostname: string) => {
    calls.push(hostname);
    const addresses = table[hostname];
    if (addresses === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
  return Object.assign(lookup, { calls });
}

const delivery = { headers: { 'content-type': 'application/json' }, body: '{"id":"evt","type":"invoice.closed"}' };

describe('checkWebhookUrl at registration', () => {
  const forbidden: Array<[url: string, why: string]> = [
    ['http://example.com/hook', 'plain http'],
    ['ftp://example.com/hook', 'ftp scheme'],
    ['javascript:alert(1)', 'javascript scheme'],
    ['https://user:secret@example.com/hook', 'credentials'],
    ['https://user@example.com/hook', 'user name only'],
    ['/webhooks/ivory', 'relative URL'],
    ['example.com/hook', 'no scheme'],
    ['', 'empty'],
    ['https://127.0.0.1/hook', 'IPv4 loopback'],
    ['https://127.0.0.1./hook', 'IPv4 loopback with trailing dot'],
    ['https://127.1/hook', 'short IPv4 form'],
    ['https://0x7f000001/hook', 'hex IPv4 integer'],
    ['https://2130706433/hook', 'decimal IPv4 integer'],
    ['https://0177.0.0.1/hook', 'octal IPv4'],
    ['https://0x7f.1/hook', 'hex short IPv4'],
    ['https://[::1]/hook', 'IPv6 loopback'],
    ['https://[::]/hook', 'IPv6 unspecified'],
    ['https://[::ffff:127.0.0.1]/hook', 'IPv4-mapped loopback, dotted'],
    ['https://[::ffff:7f00:1]/hook', 'IPv4-mapped loopback, hex'],
    ['https://[::ffff:a9fe:a9fe]/hook', 'IPv4-mapped cloud metadata'],
    ['https://[::ffff:10.0.0.1]/hook', 'IPv4-mapped private'],
    ['https://[::7f00:1]/hook', 'IPv4-compatible (deprecated) loopback'],
    ['https://[64:ff9b::7f00:1]/hook', 'NAT64 to loopback'],
    ['https://[64:ff9b:1::a00:1]/hook', 'local-use NAT64'],
    ['https://[2002:7f00:1::1]/hook', '6to4'],
    ['https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook', 'Teredo'],
    ['https://[2001:db8::1]/hook', 'IPv6 documentation'],
    ['https://169.254.169.254/latest/meta-data/', 'cloud metadata (link-local)'],
    ['https://10.1.2.3/hook', '10/8'],
    ['https://172.16.0.1/hook', '172.16/12 low end'],
    ['https://172.31.255.254/hook', '172.16/12 high end'],
    ['https://192.168.1.1/hook', '192.168/16'],
    ['https://100.64.0.1/hook', 'carrier-grade NAT'],
    ['https://0.0.0.0/hook', 'unspecified'],
    ['https://0/hook', 'unspecified, short form'],
    ['https://224.0.0.1/hook', 'multicast'],
    ['https://255.255.255.255/hook', 'broadcast'],
    ['https://192.0.2.10/hook', 'TEST-NET-1 (reserved)'],
    ['https://240.0.0.1/hook', 'class E (reserved)'],
    ['https://[fc00::1]/hook', 'unique local'],
    ['https://[fd12:3456:789a::1]/hook', 'unique local, fd'],
    ['https://[fe80::1]/hook', 'IPv6 link-local'],
    ['https://[ff02::1]/hook', 'IPv6 multicast'],
    ['https://localhost/hook', 'localhost'],
    ['https://LOCALHOST./hook', 'localhost, upper case with trailing dot'],
    ['https://foo.localhost/hook', '*.localhost'],
    ['https://printer.local/hook', '*.local'],
    ['https://metadata.google.internal/computeMetadata/v1/', '*.internal'],
    ['https://intranet/hook', 'single-label name'],
  ];

  it.each(forbidden)('refuses %s (%s)', (url) => {
    const result = checkWebhookUrl(url, { allowPrivate: false });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).not.toBe('');
  });

  const allowed: Array<[url: string, normalised: string]> = [
    ['https://example.com/webhooks/ivory', 'https://example.com/webhooks/ivory'],
    ['https://hooks.example.org:8443/ivory?shop=1', 'https://hooks.example.org:8443/ivory?shop=1'],
    ['https://example.com/hook#fragment', 'https://example.com/hook'],
    ['HTTPS://Example.COM/Hook', 'https://example.com/Hook'],
    ['https://8.8.8.8/hook', 'https://8.8.8.8/hook'],
    ['https://[2606:4700:4700::1111]/hook', 'https://[2606:4700:4700::1111]/hook'],
    ['https://[::ffff:8.8.8.8]/hook', 'https://[::ffff:808:808]/hook'],
    ['https://[64:ff9b::808:808]/hook', 'https://[64:ff9b::808:808]/hook'],
    ['https://пример.рф/hook', 'https://xn--e1afmkfd.xn--p1ai/hook'],
  ];

  it.each(allowed)('allows %s', (url, normalised) => {
    const result = checkWebhookUrl(url, { allowPrivate: false });
    expect(result).toEqual({ ok: true, url: new URL(normalised) });
  });

  it('relies on the URL parser to normalise every IPv4 spelling to a dotted quad', () => {
    for (const spelling of ['127.1', '0x7f000001', '2130706433', '0177.0.0.1', '0x7f.1', '127.0.0.1.']) {
      expect(new URL(`https://${spelling}/`).hostname).toBe('127.0.0.1');
    }
    expect(new URL('https://[::ffff:127.0.0.1]/').hostname).toBe('[::ffff:7f00:1]');
  });

  describe('with allowPrivate (development only)', () => {
    it.each([
      'http://127.0.0.1:1234/x',
      'https://127.0.0.1:1234/x',
      'http://localhost:3000/hook',
      'http://receiver:8080/hook',
      'http://10.0.0.5/hook',
      'http://192.168.1.20/hook',
      'http://[::1]:8080/hook',
      'http://[fd00::5]/hook',
    ])('allows %s', (url) => {
      expect(checkWebhookUrl(url, { allowPrivate: true }).ok).toBe(true);
    });

    it.each([
      'ftp://127.0.0.1/x',
      'http://user:pass@127.0.0.1/x',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::ffff:a9fe:a9fe]/',
      'http://[fe80::1]/',
      'http://0.0.0.0:8080/',
      'http://224.0.0.1/',
      'not a url',
    ])('still refuses %s', (url) => {
      expect(checkWebhookUrl(url, { allowPrivate: true }).ok).toBe(false);
    });
  });
});

describe('isForbiddenAddress', () => {
  it.each([
    ['8.8.8.8', false],
    ['1.1.1.1', false],
    ['2606:4700:4700::1111', false],
    ['::ffff:8.8.8.8', false],
    ['127.0.0.1', true],
    ['127.255.255.254', true],
    ['::1', true],
    ['[::1]', true],
    ['::ffff:7f00:1', true],
    ['::ffff:0:7f00:1', true],
    ['64:ff9b::a9fe:a9fe', true],
    ['fe80::1%eth0', true],
    ['2001:db8::1', true],
    ['0x7f.1', true],
    ['not-an-address', true],
    ['', true],
  ])('%s → forbidden %s', (address, expected) => {
    expect(isForbiddenAddress(address)).toBe(expected);
  });

  it('admits loopback and private ranges, not link-local, with allowPrivate', () => {
    expect(isForbiddenAddress('127.0.0.1', { allowPrivate: true })).toBe(false);
    expect(isForbiddenAddress('::1', { allowPrivate: true })).toBe(false);
    expect(isForbiddenAddress('10.0.0.1', { allowPrivate: true })).toBe(false);
    expect(isForbiddenAddress('fd00::1', { allowPrivate: true })).toBe(false);
    expect(isForbiddenAddress('169.254.169.254', { allowPrivate: true })).toBe(true);
    expect(isForbiddenAddress('0.0.0.0', { allowPrivate: true })).toBe(true);
  });
});

describe('guarded dispatcher at connect time', () => {
  it('refuses a name that resolves to loopback (DNS rebinding), though a receiver listens there', async () => {
    const receiver = await startReceiver();
    const lookup = fakeLookup({ 'rebind.test': ['127.0.0.1'] });
    expect(checkWebhookUrl(`https://rebind.test:${receiver.port}/hook`, { allowPrivate: false }).ok).toBe(true);

    const result = await postWebhook(guardedDispatcher({ allowPrivate: false, lookup }), `http://rebind.test:${receiver.port}/hook`, delivery);

    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain('ESSRF');
    expect(lookup.calls).toEqual(['rebind.test']);
    expect(receiver.requests).toHaveLength(0);
  });

  it('refuses when any one of several resolved addresses is forbidden', async () => {
    const lookup = fakeLookup({ 'mixed.test': ['8.8.8.8', '127.0.0.1'] });
    const result = await postWebhook(guardedDispatcher({ allowPrivate: false, lookup }), 'http://mixed.test/hook', delivery);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(/ESSRF.*127\.0\.0\.1/);
  });

  it('refuses IP literals without asking the resolver', async () => {
    const receiver = await startReceiver();
    const lookup = fakeLookup({});
    const dispatcher = guardedDispatcher({ allowPrivate: false, lookup });
    for (const host of ['127.0.0.1', '[::ffff:127.0.0.1]']) {
      const result = await postWebhook(dispatcher, `http://${host}:${receiver.port}/hook`, delivery);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.error).toContain('ESSRF');
    }
    expect(lookup.calls).toEqual([]);
    expect(receiver.requests).toHaveLength(0);
  });

  it('refuses link-local addresses even with allowPrivate', async () => {
    const lookup = fakeLookup({ 'metadata.test': ['169.254.169.254'] });
    const result = await postWebhook(guardedDispatcher({ allowPrivate: true, lookup }), 'http://metadata.test/latest/meta-data/', delivery);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain('ESSRF');
  });

  it('with allowPrivate, delivers to the real loopback receiver under the original host name', async () => {
    const receiver = await startReceiver((response) => response.writeHead(202).end('stored'));
    const lookup = fakeLookup({ 'rebind.test': ['127.0.0.1'] });

    const result = await postWebhook(guardedDispatcher({ allowPrivate: true, lookup }), `http://rebind.test:${receiver.port}/hook?x=1`, {
      headers: { 'content-type': 'application/json', 'service-event-id': 'evt_1' },
      body: Buffer.from(delivery.body),
    });

    expect(result).toMatchObject({ ok: true, status: 202, responseExcerpt: 'stored' });
    expect(receiver.requests).toHaveLength(1);
    const [received] = receiver.requests;
    expect(received?.method).toBe('POST');
    expect(received?.url).toBe('/hook?x=1');
    expect(received?.headers.host).toBe(`rebind.test:${receiver.port}`);
    expect(received?.headers['service-event-id']).toBe('evt_1');
    expect(received?.body.toString()).toBe(delivery.body);
  });

  it('reports a name that does not resolve as an error, not a throw', async () => {
    const result = await postWebhook(guardedDispatcher({ allowPrivate: false, lookup: fakeLookup({}) }), 'http://nowhere.test/hook', delivery);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain('ENOTFOUND');
  });

  it('reports a refused connection as an error', async () => {
    const receiver = await startReceiver();
    await receiver.close();
    const result = await postWebhook(guardedDispatcher({ allowPrivate: true }), `http://127.0.0.1:${receiver.port}/hook`, delivery);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain('ECONNREFUSED');
  });
});

describe('postWebhook', () => {
  it('does not follow a redirect to a private address; the 302 is the result', async () => {
    const target = await startReceiver();
    const redirecting = await startReceiver((response) =>
      response.writeHead(302, { location: `http://127.0.0.1:${target.port}/internal` }).end(),
    );

    const result = await postWebhook(guardedDispatcher({ allowPrivate: true }), `http://127.0.0.1:${redirecting.port}/hook`, delivery);

    expect(result).toMatchObject({ ok: true, status: 302 });
    expect(redirecting.requests).toHaveLength(1);
    expect(target.requests).toHaveLength(0);
  });

  it('times out a receiver that never answers', async () => {
    const receiver = await startReceiver(() => {
      // Never responds.
    });
    const started = Date.now();

    const result = await postWebhook(guardedDispatcher({ allowPrivate: true }), `http://127.0.0.1:${receiver.port}/hook`, {
      ...delivery,
      timeoutMs: 300,
    });

    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toMatch(/timeout/);
    expect(result.latencyMs).toBeGreaterThanOrEqual(250);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('keeps the status when the body stalls after the headers', async () => {
    const receiver = await startReceiver((response) => {
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write('partial');
    });

    const result = await postWebhook(guardedDispatcher({ allowPrivate: true }), `http://127.0.0.1:${receiver.port}/hook`, {
      ...delivery,
      timeoutMs: 300,
    });

    expect(result).toMatchObject({ ok: true, status: 200, responseExcerpt: 'partial' });
  });

  it('reads at most maxResponseBytes of a huge response', async () => {
    const receiver = await startReceiver((response) => {
      response.writeHead(500, { 'content-type': 'text/plain' });
      response.end('x'.repeat(8 * 1024 * 1024));
    });
    const dispatcher = guardedDispatcher({ allowPrivate: true });
    const url = `http://127.0.0.1:${receiver.port}/hook`;

    const capped = await postWebhook(dispatcher, url, { ...delivery, maxResponseBytes: 100 });
    expect(capped).toMatchObject({ ok: true, status: 500 });
    if (capped.ok) expect(capped.responseExcerpt).toBe('x'.repeat(100));

    const byDefault = await postWebhook(dispatcher, url, delivery);
    if (byDefault.ok) expect(byDefault.responseExcerpt).toHaveLength(4096);
    expect(byDefault.ok).toBe(true);
  });

  it('returns a short body whole', async () => {
    const receiver = await startReceiver((response) => response.writeHead(400).end('bad signature'));
    const result = await postWebhook(guardedDispatcher({ allowPrivate: true }), `http://127.0.0.1:${receiver.port}/hook`, delivery);
    expect(result).toMatchObject({ ok: true, status: 400, responseExcerpt: 'bad signature' });
    if (result.ok) expect(result.retryAfterSeconds).toBeUndefined();
  });

  it('parses Retry-After from the response', async () => {
    const receiver = await startReceiver((response) => response.writeHead(503, { 'retry-after': '120' }).end());
    const result = await postWebhook(guardedDispatcher({ allowPrivate: true }), `http://127.0.0.1:${receiver.port}/hook`, delivery);
    expect(result).toMatchObject({ ok: true, status: 503, retryAfterSeconds: 120 });
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-09-23T10:00:00Z');

  it.each([
    ['120', 120],
    [' 0 ', 0],
    ['Wed, 23 Sep 2026 10:05:00 GMT', 300],
    ['Wed, 23 Sep 2026 09:00:00 GMT', 0],
    ['soon', undefined],
    ['-5', undefined],
    ['1.5', undefined],
    [undefined, undefined],
  ])('%s → %s', (value, expected) => {
    expect(parseRetryAfter(value, now)).toBe(expected);
  });
});
