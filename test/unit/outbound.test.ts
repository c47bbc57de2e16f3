import type { LookupAddress } from 'node:dns';
import { afterEach, describe, expect, it } from 'vitest';
import {
  classifyAddress,
  MAX_REDIRECTS,
  Outbound,
  OutboundError,
  outboundPolicyFor,
} from '../../domain/mcp/outbound.js';
import { startRecordingServer, type RecordingServer } from '../helpers/recordingServer.js';

/** A resolver that answers every name with the given addresses: a name that points somewhere else (DNS rebinding). */
const resolvingTo =
  (...addresses: string[]) =>
  (
    _hostname: string,
    _options: { all: true },
    callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
  ) =>
    callback(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );

describe('classifyAddress', () => {
  it.each([
    ['8.8.8.8', 'public'],
    ['2606:4700:4700::1111', 'public'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::808:808', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.1.1', 'private'],
    ['fd12:3456::1', 'private'],
    ['::ffff:10.1.2.3', 'private'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    // always refused: link-local and cloud metadata, in every spelling
    ['169.254.169.254', 'refused'],
    ['169.254.0.1', 'refused'],
    ['::ffff:169.254.169.254', 'refused'],
    ['::ffff:a9fe:a9fe', 'refused'],
    ['64:ff9b::a9fe:a9fe', 'refused'],
    ['2002:a9fe:a9fe::1', 'refused'],
    ['fe80::1', 'refused'],
    ['fe80::1%eth0', 'refused'],
    ['fd00:ec2::254', 'refused'],
    ['fd00:ec2::23', 'refused'],
    ['100.100.100.200', 'refused'],
    ['168.63.129.16', 'refused'],
    // and what is never a server: multicast, broadcast, reserved, garbage
    ['224.0.0.1', 'refused'],
    ['ff02::1', 'refused'],
    ['255.255.255.255', 'refused'],
    ['240.0.0.1', 'refused'],
    ['not an address', 'refused'],
  ])('%s is %s', (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });
});

describe('outboundPolicyFor: private ranges only when the saved server lives there', () => {
  it('a server on loopback may reach loopback and public addresses, nothing private or link-local', async () => {
    const policy = await outboundPolicyFor('http://127.0.0.1:3000/mcp');
    expect(['127.0.0.1', '::1', '93.184.216.34'].map((a) => policy.allows(a))).toEqual([true, true, true]);
    expect(
      ['10.0.0.1', '192.168.0.1', 'fd00::1', '100.64.0.1', '0.0.0.0', '169.254.169.254', 'fd00:ec2::254'].some((a) =>
        policy.allows(a),
      ),
    ).toBe(false);
  });

  it('a server on a private network may reach that class (IPv4 and IPv6), not loopback', async () => {
    const policy = await outboundPolicyFor('http://10.1.2.3/mcp');
    expect(['10.9.9.9', '192.168.7.7', 'fd00::5', '1.1.1.1'].map((a) => policy.allows(a))).toEqual([
      true,
      true,
      true,
      true,
    ]);
    expect(['127.0.0.1', '::1', '100.64.0.1', '169.254.169.254', '100.100.100.200'].some((a) => policy.allows(a))).toBe(
      false,
    );
  });

  it('a public server reaches only public addresses; its name is resolved to decide', async () => {
    const policy = await outboundPolicyFor('https://mcp.example.test/mcp', resolvingTo('93.184.216.34'));
    expect(policy.allows('93.184.216.34')).toBe(true);
    expect(['127.0.0.1', '10.0.0.1', '169.254.169.254'].some((a) => policy.allows(a))).toBe(false);
    const internal = await outboundPolicyFor('https://mcp.corp.test/mcp', resolvingTo('10.20.30.40'));
    expect(internal.allows('10.0.0.7')).toBe(true);
  });

  it('a server saved at a metadata address gives no home at all', async () => {
    const policy = await outboundPolicyFor('http://169.254.169.254/mcp');
    expect(policy.home.size).toBe(0);
    expect(policy.allows('169.254.169.254')).toBe(false);
  });
});

describe('Outbound.fetch', () => {
  const servers: RecordingServer[] = [];
  const outbounds: Outbound[] = [];
  afterEach(async () => {
    await Promise.all([...servers.splice(0).map((s) => s.close()), ...outbounds.splice(0).map((o) => o.close())]);
  });
  const listen = async (respond?: Parameters<typeof startRecordingServer>[0]) => {
    const server = await startRecordingServer(respond);
    servers.push(server);
    return server;
  };
  const outbound = async (serverUrl: string, lookup?: ReturnType<typeof resolvingTo>) => {
    const created = await Outbound.forServer(serverUrl, { lookup });
    outbounds.push(created);
    return created;
  };
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => (error instanceof OutboundError ? error.kind : error),
    );

  it('reaches an address the policy allows', async () => {
    const target = await listen((_r, res) => res.end('hello'));
    const response = await (await outbound(`${target.origin}/mcp`)).fetch(`${target.origin}/x`);
    expect(await response.text()).toBe('hello');
  });

  it('refuses an IP literal outside the policy before connecting', async () => {
    const target = await listen();
    const port = new URL(target.origin).port;
    const fromPublic = await outbound('https://93.184.216.34/mcp');
    expect(await refusal(fromPublic.fetch(`http://127.0.0.1:${port}/`))).toBe('refused_address');
    expect(await refusal(fromPublic.fetch(`http://[::ffff:127.0.0.1]:${port}/`))).toBe('refused_address');
    expect(target.requests).toEqual([]);
  });

  it('checks the address a name resolves to at connect time (DNS rebinding)', async () => {
    const target = await listen((_r, res) => res.end('internal'));
    const port = new URL(target.origin).port;
    // The saved server resolved to a public address; the name fetched now resolves to loopback.
    const rebinding = await outbound('https://93.184.216.34/mcp', resolvingTo('127.0.0.1'));
    expect(await refusal(rebinding.fetch(`http://rebind.example.test:${port}/`))).toBe('refused_address');
    expect(target.requests).toEqual([]);
    // The same name is fine for a server that itself lives on loopback.
    const local = await outbound(`${target.origin}/mcp`, resolvingTo('127.0.0.1'));
    expect(await (await local.fetch(`http://rebind.example.test:${port}/`)).text()).toBe('internal');
  });

  it('follows redirects within the origin (keeping method and body on 307), a bounded number of times', async () => {
    const target = await listen((request, res) => {
      const hop = Number(/^\/hop\/(\d+)$/.exec(request.url)?.[1] ?? -1);
      if (hop >= 0 && hop < 2) return void res.writeHead(307, { location: `/hop/${hop + 1}` }).end();
      res.end(`${request.method} ${request.url} ${request.body}`);
    });
    const fetcher = await outbound(`${target.origin}/mcp`);
    const response = await fetcher.fetch(`${target.origin}/hop/0`, { method: 'POST', body: 'payload' });
    expect(await response.text()).toBe('POST /hop/2 payload');

    const loop = await listen((request, res) => void res.writeHead(302, { location: request.url }).end());
    expect(await refusal((await outbound(`${loop.origin}/mcp`)).fetch(`${loop.origin}/again`))).toBe(
      'redirect_refused',
    );
    expect(loop.requests).toHaveLength(MAX_REDIRECTS + 1);
  });

  it('never follows a redirect to another origin: the other host gets nothing', async () => {
    const other = await listen();
    const redirecting = await listen((_r, res) => void res.writeHead(307, { location: `${other.origin}/steal` }).end());
    const fetcher = await outbound(`${redirecting.origin}/mcp`);
    const sent = fetcher.fetch(`${redirecting.origin}/mcp`, {
      method: 'POST',
      headers: { 'x-api-key': 'saved' },
      body: '{}',
    });
    expect(await refusal(sent)).toBe('redirect_refused');
    expect(other.requests).toEqual([]);
  });

  it('says unreachable for a closed port and timeout past the deadline, with our words only', async () => {
    const closed = await listen();
    await closed.close();
    const fetcher = await outbound(`${closed.origin}/mcp`);
    const error = await fetcher.fetch(`${closed.origin}/`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OutboundError);
    expect(error).toMatchObject({ kind: 'unreachable', message: 'fetch failed (ECONNREFUSED)' });

    const silent = await listen(() => {}); // never answers
    const late = await Outbound.forServer(`${silent.origin}/mcp`, { signal: AbortSignal.timeout(200) });
    outbounds.push(late);
    expect(await refusal(late.fetch(`${silent.origin}/`))).toBe('timeout');
  });
});
