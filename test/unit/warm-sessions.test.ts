import { describe, expect, it } from 'vitest';
import type { ConnectTarget, McpConnection } from '../../domain/mcp/connection.js';
import { ConnectionPool } from '../../domain/mcp/pool.js';
import { createLogger } from '../../runtime/logger.js';
import type { SavedServer } from '../../domain/catalog/server.js';

/** Sessions that only count: opened, closed, and by which key (the server's revision). */
function fakeSessions() {
  const opened: Array<{ id: number; revision: number; closed: boolean }> = [];
  const open = async (target: ConnectTarget): Promise<McpConnection> => {
    const record = { id: opened.length + 1, revision: target.server.revision, closed: false };
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
  return { opened, open };
}

const server = (revision = 1) => ({ id: 'srv_1', revision, clientProfile: {} }) as unknown as SavedServer;
const target = (revision = 1) =>
  ({ server: server(revision), timeouts: {}, dataDir: '/tmp' }) as unknown as ConnectTarget;
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('isolated sessions and the warm set', () => {
  it('gives each isolated caller a session nobody else used, and keeps two opened ahead', async () => {
    const { opened, open } = fakeSessions();
    const pool = new ConnectionPool({ idleTimeoutMs: 60_000, log: createLogger('silent'), open, warmSessions: 2 });
    const first = pool.isolated();
    const a = await first.use(target(), async (c) => c.pid);
    const again = await first.use(target(), async (c) => c.pid);
    expect(again).toBe(a); // one caller's calls share its session
    await settle();
    expect(opened.filter((s) => !s.closed)).toHaveLength(3); // its own, and two warm

    const second = pool.isolated();
    const b = await second.use(target(), async (c) => c.pid);
    expect(b).not.toBe(a);
    expect(opened.find((s) => s.id === b)!.id).toBeLessThanOrEqual(3); // taken warm, not opened on demand

    await first.close();
    expect(opened.find((s) => s.id === a)!.closed).toBe(true); // never handed out again
    await pool.close();
    expect(opened.every((s) => s.closed)).toBe(true);
  });

  it('does not hand out a warm session of an older revision of the server', async () => {
    const { opened, open } = fakeSessions();
    const pool = new ConnectionPool({ idleTimeoutMs: 60_000, log: createLogger('silent'), open, warmSessions: 1 });
    const first = pool.isolated();
    await first.use(target(1), async () => undefined);
    await settle();
    const edited = pool.isolated();
    const used = await edited.use(target(2), async (c) => c.pid);
    expect(opened.find((s) => s.id === used)!.revision).toBe(2);
    await settle();
    expect(opened.filter((s) => s.revision === 1 && s.id !== 1).every((s) => s.closed)).toBe(true);
    await pool.close();
  });

  it('opens on demand with no warm set, and closes what the caller used', async () => {
    const { opened, open } = fakeSessions();
    const pool = new ConnectionPool({ idleTimeoutMs: 60_000, log: createLogger('silent'), open, warmSessions: 0 });
    const session = pool.isolated();
    await session.use(target(), async () => undefined);
    await session.close();
    await settle();
    expect(opened).toEqual([{ id: 1, revision: 1, closed: true }]);
    await expect(session.use(target(), async () => undefined)).rejects.toThrow(/ended/);
    await pool.close();
  });
});
