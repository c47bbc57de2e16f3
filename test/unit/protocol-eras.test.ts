import { describe, expect, it } from 'vitest';
import { eraKey, ProtocolEras, RUNWAY_PROTOCOL_VERSIONS } from '../../domain/mcp/protocolEras.js';

const discover = (ttlMs?: number) =>
  ({
    supportedVersions: ['2026-07-28'],
    capabilities: {},
    serverInfo: { name: 's', version: '1' },
    ...(ttlMs === undefined ? {} : { ttlMs }),
  }) as never;

describe('remembered protocol eras', () => {
  it('speaks both eras, newest first', () => {
    expect(RUNWAY_PROTOCOL_VERSIONS[0]).toBe('2026-07-28');
    expect(RUNWAY_PROTOCOL_VERSIONS).toContain('2025-11-25');
    expect(RUNWAY_PROTOCOL_VERSIONS).toContain('2024-11-05');
  });

  it('hands back a 2026 server’s advertisement while its ttlMs lasts, then asks again', () => {
    let now = 1_000;
    const eras = new ProtocolEras(() => now);
    const key = eraKey({ id: 'srv_1', revision: 3 });
    expect(eras.prior(key)).toBeUndefined();
    eras.remember(key, { era: 'modern', version: '2026-07-28', discover: discover(60_000) });
    expect(eras.prior(key)).toEqual({ kind: 'modern', discover: discover(60_000) });
    now += 60_000;
    expect(eras.prior(key)).toBeUndefined();
  });

  it('keeps an initialize-era verdict for an hour; an edited server (new revision) is probed again', () => {
    let now = 0;
    const eras = new ProtocolEras(() => now);
    eras.remember(eraKey({ id: 'srv_1', revision: 1 }), { era: 'legacy', version: '2025-11-25' });
    expect(eras.prior(eraKey({ id: 'srv_1', revision: 1 }))).toEqual({ kind: 'legacy' });
    expect(eras.prior(eraKey({ id: 'srv_1', revision: 2 }))).toBeUndefined();
    now += 60 * 60_000;
    expect(eras.prior(eraKey({ id: 'srv_1', revision: 1 }))).toBeUndefined();
  });

  it('forgets a verdict that stopped matching', () => {
    const eras = new ProtocolEras();
    const key = eraKey({ id: 'srv_2', revision: 1 });
    eras.remember(key, { era: 'legacy', version: '2025-06-18' });
    eras.forget(key);
    expect(eras.prior(key)).toBeUndefined();
  });
});
