import { describe, expect, it } from 'vitest';
import type { ConnectTarget, McpConnection } from '../../domain/mcp/connection.js';
import { ConnectionPool } from '../../domain/mcp/pool.js';
import { createLogger } from '../../runtime/logger.js';
import type { ClientProfile } from '../../domain/mcp/clientProfile.js';
import type { SavedServer } from '../../domain/catalog/server.js';

/**
 * Issue 27 finding 5: sessions kept open with nobody using them (a pool's idle sessions, the warm sets of isolated
 * callers) are one per client profile, and a tenant makes as many profiles as it has hosts. They are capped per
 * server and per organization across profiles, the least recently used closed first.
 */

/** Sessions that only count: opened, closed, and for which server and profile. */
function fakeSessions() {
  const opened: Array<{ id: number; server: string; profile: string; closed: boolean }> = [];
  const open = async (target: ConnectTarget): Promise<McpConnection> => {
    const record = {
      id: opened.length + 1,
      server: target.server.id,
      profile: target.profile?.clientInfo?.name ?? '-',
      closed: false,
    };
    opened.push(record);
    let ended!: () => void;
    const closed = new Promise<void>((resolve) => (ended = resolve));
    return {
      pid: record.id,
      closed,
      lease: undefined,
      async close() {
        record.closed = true;
        ended();
      },
    } as unknown as McpConnection;
  };
  const live = (server?: string) => opened.filter((s) => !s.closed && (server === undefined || s.server === server));
  return { opened, open, live };
}

const server = (id: string, organizationId = 'org_a') =>
  ({
    id,
    organizationId,
    revision: 1,
    transportType: 'http',
    clientProfile: {},
    allowedRoots: [],
  }) as unknown as SavedServer;
const profile = (name: string): ClientProfile => ({ clientInfo: { name, version: '1' } });
const target = (srv: SavedServer, name: string) =>
  ({ server: srv, profile: profile(name), timeouts: {}, dataDir: '/tmp' }) as unknown as ConnectTarget;
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));
const limits = { perServer: 4, perOrganization: 16 }; // domain/limits.ts's
const pool = (warmSessions = 2) =>
  new ConnectionPool({
    idleTimeoutMs: 60_000,
    log: createLogger('silent'),
    warmSessions,
    idleLimits: limits,
    open: fakes.open,
  });
let fakes = fakeSessions();

describe('idle sessions are capped across client profiles', () => {
  it('30 profiles of one server leave at most the per-server cap open, the least recently used closed', async () => {
    fakes = fakeSessions();
    const sessions = pool();
    const srv = server('srv_1');
    for (let i = 0; i < 30; i++) await sessions.use(target(srv, `host-${i}`), async () => undefined);
    await settle();
    expect(fakes.live()).toHaveLength(limits.perServer);
    // The most recent profiles are the ones kept; every other one was closed.
    expect(fakes.live().map((s) => s.profile)).toEqual(['host-26', 'host-27', 'host-28', 'host-29']);
    expect(fakes.opened.filter((s) => s.closed)).toHaveLength(26);
    // Later operations still work: an evicted profile opens a new session, a kept one reuses its own.
    const reopened = await sessions.use(target(srv, 'host-0'), async (c) => c.pid);
    expect(reopened).toBe(31);
    expect(await sessions.use(target(srv, 'host-29'), async (c) => c.pid)).toBe(30);
    await settle();
    expect(fakes.live()).toHaveLength(limits.perServer);
    await sessions.close();
    expect(fakes.live()).toHaveLength(0);
  });

  it("caps an organization's idle sessions across its servers, and leaves another organization's alone", async () => {
    fakes = fakeSessions();
    const sessions = pool();
    const other = server('srv_other', 'org_b');
    await sessions.use(target(other, 'b-host'), async () => undefined);
    for (let s = 0; s < 6; s++)
      for (let i = 0; i < 4; i++) await sessions.use(target(server(`srv_${s}`), `host-${i}`), async () => undefined);
    await settle();
    expect(fakes.live().filter((x) => x.server !== 'srv_other')).toHaveLength(limits.perOrganization);
    expect(fakes.live('srv_other')).toHaveLength(1);
    // Least recently used first: the first servers' sessions went.
    expect(fakes.live('srv_0')).toHaveLength(0);
    expect(fakes.live('srv_5')).toHaveLength(4);
    await sessions.close();
  });

  it('caps the warm sets of isolated callers (eval iterations) across profiles, and still serves them', async () => {
    fakes = fakeSessions();
    const sessions = pool(2);
    const srv = server('srv_1');
    for (let i = 0; i < 30; i++) {
      const iteration = sessions.isolated();
      await iteration.use(target(srv, `host-${i}`), async () => undefined);
      await settle();
      await iteration.close();
    }
    await settle();
    expect(fakes.live()).toHaveLength(limits.perServer);
    const again = sessions.isolated();
    expect(await again.use(target(srv, 'host-3'), async (c) => typeof c.pid)).toBe('number');
    await again.close();
    await sessions.close();
    expect(fakes.live()).toHaveLength(0);
  });

  it('never closes a session in use, and keeps the sessions of the profile just used', async () => {
    fakes = fakeSessions();
    const sessions = pool(0);
    const srv = server('srv_1');
    let release!: () => void;
    const busy = sessions.use(target(srv, 'busy'), () => new Promise<void>((resolve) => (release = resolve)));
    await settle();
    for (let i = 0; i < 10; i++) await sessions.use(target(srv, `host-${i}`), async () => undefined);
    await settle();
    expect(fakes.opened.find((s) => s.profile === 'busy')!.closed).toBe(false);
    release();
    await busy;
    await settle();
    expect(fakes.live()).toHaveLength(limits.perServer);
    expect(fakes.live().map((s) => s.profile)).toContain('busy');
    await sessions.close();
  });
});
