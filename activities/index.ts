import { hostname } from 'node:os';
import type { Sql } from '../db/connection.js';
import type { Logger } from './logger.js';

export interface ActivityDeps {
  sql: Sql;
  log: Logger;
}

/** The worker's activities, built from dependencies passed in (tests compose real ones the same way). */
export function createActivities(deps: ActivityDeps) {
  const { sql } = deps;
  return {
    async ping(): Promise<{ databaseTime: string; worker: string }> {
      const [row] = await sql<{ now: Date }[]>`SELECT now()`;
      return { databaseTime: row.now.toISOString(), worker: `${hostname()}:${process.pid}` };
    },
  };
}

export type Activities = ReturnType<typeof createActivities>;
