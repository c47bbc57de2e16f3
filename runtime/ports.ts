import { createServer, type Server } from 'node:net';

/** A port one of the stack's processes listens on, and the setting that chose it. */
export interface PortSetting {
  port: number;
  /** the address it listens on; 0.0.0.0 (every IPv4 address) when omitted */
  host?: string;
  /** the variable that sets it: PORT, METRICS_PORT, DEMO_MCP_PORT, ... */
  setting: string;
  /** what listens there, for the sentence: "the API", "the Temporal Web UI" */
  what: string;
}

/**
 * A port a process cannot listen on: taken by another process (EADDRINUSE), not allowed to this user (EACCES), or
 * given to two settings at once. The message names the port and its setting, and what to do.
 */
export class PortInUseError extends Error {
  readonly port: number;
  readonly setting: string;
  /** EADDRINUSE or EACCES as the system said, SHARED for a port two settings name */
  readonly code: 'EADDRINUSE' | 'EACCES' | 'SHARED';

  constructor(where: PortSetting, reason: 'EADDRINUSE' | 'EACCES' | { sharedWith: string } = 'EADDRINUSE') {
    const subject = `port ${where.port} (${where.setting}, ${where.what})`;
    super(
      reason === 'EADDRINUSE'
        ? `${subject} is already in use: stop what listens there, or set ${where.setting} to a free port`
        : reason === 'EACCES'
          ? `${subject} is not open to this user (EACCES): set ${where.setting} to a port above 1023`
          : `${subject} is ${reason.sharedWith}'s too: set one of them to another port`,
    );
    this.name = 'PortInUseError';
    this.port = where.port;
    this.setting = where.setting;
    this.code = typeof reason === 'string' ? reason : 'SHARED';
  }
}

/**
 * Listens on the setting's port, or rejects with a PortInUseError naming it (any other failure as it is). For every
 * server a Runway process opens: a taken port stops the process with a sentence instead of being ignored (Express 5
 * passes the error to `listen`'s callback, which logged "listening" all the same).
 */
export function listenOn(server: Server, where: PortSetting): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      server.off('listening', listening);
      reject(error.code === 'EADDRINUSE' || error.code === 'EACCES' ? new PortInUseError(where, error.code) : error);
    };
    const listening = () => {
      server.off('error', failed);
      resolve();
    };
    server.once('error', failed);
    server.once('listening', listening);
    server.listen(where.port, where.host ?? '0.0.0.0');
  });
}

/** Whether a listener can open `port` on `host` at this moment (it is closed again at once). */
async function refusal(port: number, host: string): Promise<'EADDRINUSE' | 'EACCES' | undefined> {
  const probe = createServer();
  try {
    await listenOn(probe, { port, host, setting: '', what: '' });
    return undefined;
  } catch (error) {
    if (error instanceof PortInUseError && error.code !== 'SHARED') return error.code;
    // Not an address this machine has (an IPv6 host without IPv6, a mistyped HOST): the process reports it itself.
    return undefined;
  } finally {
    if (probe.listening) await new Promise((r) => probe.close(r));
  }
}

/**
 * The ports of `wanted` that their processes could not listen on now, in order, each once per setting: taken by
 * another process, or the port of an earlier setting too. Checked on the process's own address and on 127.0.0.1,
 * where a listener of another program keeps a local client from reaching ours (and which some systems let a
 * wildcard listener share). A moment later a port may be taken all the same: each process still fails loudly.
 * Port 0 (any free port) is never taken.
 */
export async function takenPorts(wanted: PortSetting[]): Promise<PortInUseError[]> {
  const first = new Map<number, PortSetting>();
  const found: PortInUseError[] = [];
  for (const where of wanted) {
    if (where.port === 0) continue;
    const earlier = first.get(where.port);
    if (earlier) {
      // Taken by another process: this setting is refused for the same reason; else the two would collide.
      const taken = found.find((e) => e.port === where.port && e.setting === earlier.setting);
      const code = taken?.code;
      found.push(new PortInUseError(where, code && code !== 'SHARED' ? code : { sharedWith: earlier.setting }));
      continue;
    }
    first.set(where.port, where);
    const hosts = [...new Set([where.host ?? '0.0.0.0', '127.0.0.1'])];
    for (const host of hosts) {
      const reason = await refusal(where.port, host);
      if (reason) {
        found.push(new PortInUseError(where, reason));
        break;
      }
    }
  }
  return found;
}
