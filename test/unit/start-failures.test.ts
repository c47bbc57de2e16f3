import { describe, expect, it } from 'vitest';
import { postgresInitFailure, postgresStartFailure } from '../../scripts/embedded-postgres.js';
import { devServerStartFailure } from '../../scripts/temporal-dev-server.js';
import { PortInUseError } from '../../runtime/ports.js';

// What the embedded PostgreSQL and the Temporal CLI print when they cannot start (captured from the real programs):
// the error names the port and its setting, or says what holds the data folder, instead of `undefined`.
describe('why a piece of npm start did not start', () => {
  const taken = [
    '2026-11-28 09:50:57.578 UTC [16242] LOG:  starting PostgreSQL 17.6 on x86_64-pc-linux-gnu',
    '2026-11-28 09:50:57.580 UTC [16242] LOG:  could not bind IPv4 address "127.0.0.1": Address already in use',
    '2026-11-28 09:50:57.580 UTC [16242] HINT:  Is another postmaster already running on port 17432? If not, wait a few seconds and retry.',
    '2026-11-28 09:50:57.580 UTC [16242] WARNING:  could not create listen socket for "127.0.0.1"',
    '2026-11-28 09:50:57.580 UTC [16242] FATAL:  could not create any TCP/IP sockets',
    '2026-11-28 09:50:57.584 UTC [16242] LOG:  database system is shut down',
  ].join('\n');
  const where = { port: 17432, setting: 'EMBEDDED_POSTGRES_PORT', dataDir: '/data/postgres' };

  it('PostgreSQL on a taken port: the port and EMBEDDED_POSTGRES_PORT', () => {
    const error = postgresStartFailure(taken, where);
    expect(error).toBeInstanceOf(PortInUseError);
    expect(error.message).toBe(
      'port 17432 (EMBEDDED_POSTGRES_PORT, the embedded PostgreSQL) is already in use: stop what listens there, or set EMBEDDED_POSTGRES_PORT to a free port',
    );
  });

  it('PostgreSQL on a data folder another one runs on: which pid, and what to do', () => {
    const locked = [
      '2026-11-28 09:51:02.022 UTC [16318] FATAL:  lock file "postmaster.pid" already exists',
      '2026-11-28 09:51:02.022 UTC [16318] HINT:  Is another postmaster (PID 16262) running in data directory "/data/postgres"?',
    ].join('\n');
    expect(postgresStartFailure(locked, where).message).toBe(
      'another PostgreSQL (pid 16262) already runs on /data/postgres: is an `npm start` of this data folder still running? Stop it first',
    );
  });

  it('PostgreSQL failing otherwise: its own last lines, never `undefined`', () => {
    const other = 'FATAL:  data directory "/data/postgres" has invalid permissions';
    expect(postgresStartFailure(other, where).message).toBe(
      `the embedded PostgreSQL (port 17432, data in /data/postgres) did not start:\n${other}`,
    );
  });

  it('PostgreSQL that cannot set up its data folder as root: the folder, and what the postgres user needs', () => {
    const failure = new Error('Postgres init script exited with code 1. Please check the logs for extra info.');
    expect(postgresInitFailure(failure, '', '/root/runway/.data/postgres', true).message).toBe(
      'the embedded PostgreSQL could not set up its data folder /root/runway/.data/postgres: Postgres init script exited with code 1. Please check the logs for extra info. ' +
        'As root, PostgreSQL runs as the `postgres` user, which must be able to enter /root/runway/.data/postgres and every folder above it (chmod o+x), or set RUNWAY_DATA_DIR to such a folder.',
    );
  });

  const ports = { port: 17233, uiPort: 18233, portSetting: 'TEMPORAL_PORT', uiPortSetting: 'TEMPORAL_UI_PORT' };

  it('the Temporal dev server on a taken port: TEMPORAL_PORT', () => {
    const output =
      'time=2026-11-28T09:50:29.086 level=ERROR msg="can\'t set frontend port 17233: listen tcp 127.0.0.1:17233: bind: address already in use"\n';
    const error = devServerStartFailure(output, ports);
    expect(error).toBeInstanceOf(PortInUseError);
    expect(error?.message).toBe(
      'port 17233 (TEMPORAL_PORT, the Temporal dev server) is already in use: stop what listens there, or set TEMPORAL_PORT to a free port',
    );
  });

  it('the Temporal dev server on a taken Web UI port: TEMPORAL_UI_PORT', () => {
    const output =
      'time=2026-11-28T09:50:29.127 level=ERROR msg="can\'t set UI port 18233: listen tcp 127.0.0.1:18233: bind: address already in use"\n';
    expect(devServerStartFailure(output, ports)?.message).toBe(
      'port 18233 (TEMPORAL_UI_PORT, the Temporal Web UI) is already in use: stop what listens there, or set TEMPORAL_UI_PORT to a free port',
    );
  });

  it('the Temporal dev server failing otherwise: no port to blame', () => {
    expect(devServerStartFailure('panic: something else', ports)).toBeUndefined();
  });
});
