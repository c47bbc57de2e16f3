import type { RunSurface, SurfaceSighting } from '../ports/surfaceStore.js';

/**
 * Records the tool surfaces one batch's listings showed on its run: a surface already recorded by this batch for
 * that server is not written again (a batch's iterations share its listing), so a batch costs one write per server
 * at most, and a run's `listings` count the batches that saw each surface. A write that fails is reported and tried
 * again with the next listing: recording never fails an iteration, nor holds one back.
 */
export class RunSurfaceRecorder {
  readonly #recorded = new Set<string>();
  #pending: Promise<void> = Promise.resolve();
  #onFailure: (error: unknown) => void = () => {};

  constructor(
    readonly runId: string,
    private readonly write: (runId: string, sighting: SurfaceSighting) => Promise<void>,
  ) {}

  onFailure(report: (error: unknown) => void): this {
    this.#onFailure = report;
    return this;
  }

  /**
   * Records the listing's surfaces in the background (the iteration does not wait for the write): writes go one
   * after the other, and `settled()` is awaited before the batch ends.
   */
  record(sightings: readonly SurfaceSighting[] | undefined): void {
    for (const sighting of sightings ?? []) {
      const key = `${sighting.serverId}\u0000${sighting.hash}`;
      if (this.#recorded.has(key)) continue;
      this.#recorded.add(key);
      this.#pending = this.#pending.then(() =>
        this.write(this.runId, sighting).catch((error: unknown) => {
          this.#recorded.delete(key);
          this.#onFailure(error);
        }),
      );
    }
  }

  /** Every write asked for so far has landed or failed (never rejects). */
  settled(): Promise<void> {
    return this.#pending;
  }
}

/** What a run's reply says about the surfaces its servers showed: per server, the hashes seen, first seen first. */
export interface RunToolSurfaces {
  serverId: string;
  serverName: string;
  hashes: string[];
  /** the server showed more than one surface during the run (different tools to different sessions, or over time) */
  changedDuringRun: boolean;
}

/** The run's surfaces by server (in the order given: by server, then first sight). */
export function runToolSurfaces(seen: readonly RunSurface[]): RunToolSurfaces[] {
  const byServer = new Map<string, RunToolSurfaces>();
  for (const row of seen) {
    const entry = byServer.get(row.serverId) ?? {
      serverId: row.serverId,
      serverName: row.serverName,
      hashes: [],
      changedDuringRun: false,
    };
    if (!entry.hashes.includes(row.hash)) entry.hashes.push(row.hash);
    entry.changedDuringRun = entry.hashes.length > 1;
    byServer.set(row.serverId, entry);
  }
  return [...byServer.values()];
}
