import type { RetentionCount, RetentionPurge, RetentionRules, RetentionStore } from '../../ports/retentionStore.js';
import { RETENTION_KINDS, type RetentionKind, type RetentionPolicy } from '../../retention/policy.js';
import { EXPIRED_UPLOAD_URL_GRACE_MS } from '../../retention/policy.js';

/** Counts what retention removed, per kind (the worker's Prometheus counter). */
export interface RetentionRecorder {
  retentionDeleted(kind: string, count: number): void;
}

export interface ApplyRetentionInput {
  /** count what would be removed, remove nothing */
  dryRun?: boolean;
  /** where a previous call stopped (its `next`); default: the start */
  from?: number;
  /** batches this call runs at most before it returns with `next` (the workflow's activity); default: until done */
  maxBatches?: number;
  /** told after each batch (the activity heartbeats there) */
  onBatch?: (progress: { kind: string; removed: number }) => void;
}

export interface RetentionReport {
  dryRun: boolean;
  /** removed by this call (a dry run: what a run would remove), per kind; every kind is listed */
  counts: Record<string, number>;
  /** the same per organization (the deployment-wide purges are not in it), kinds with nothing left out */
  byOrganization: Record<string, Record<string, number>>;
  batches: number;
  done: boolean;
  /** when not done: where the next call carries on (its `from`) */
  next?: number;
}

/**
 * One retention pass (issue 33): what each organization's policy says has expired is removed, kind after kind
 * (domain/retention/policy.ts RETENTION_KINDS, then the deployment-wide `purges`), in batches of `batchSize`, each
 * one short statement committed on its own, so no lock is held for longer than a batch. The operator CLI runs a
 * whole pass; the retention workflow runs it `maxBatches` at a time, one activity each, carrying on from `next`.
 * A dry run counts per kind what a run would remove now and removes nothing.
 */
export function applyRetention(deps: {
  retention: RetentionStore;
  defaults: RetentionPolicy;
  batchSize: number;
  /** deployment-wide purges after retention's own kinds (e.g. expired idempotency keys) */
  purges?: RetentionPurge[];
  metrics?: RetentionRecorder;
}) {
  const purges = deps.purges ?? [];
  const kinds: string[] = [...RETENTION_KINDS, ...purges.map((p) => p.kind)];
  const rules: RetentionRules = { defaults: deps.defaults, expiredUrlGraceMs: EXPIRED_UPLOAD_URL_GRACE_MS };
  const own = new Set<string>(RETENTION_KINDS);
  const extra = (kind: string) => purges.find((p) => p.kind === kind)!;

  const measure = async (kind: string, limit?: number): Promise<RetentionCount[] | number> => {
    if (own.has(kind)) {
      const k = kind as RetentionKind;
      return limit === undefined ? await deps.retention.count(k, rules) : await deps.retention.purge(k, rules, limit);
    }
    return limit === undefined ? await extra(kind).count() : await extra(kind).purge(limit);
  };

  return async function applyRetention(input: ApplyRetentionInput = {}): Promise<RetentionReport> {
    const report: RetentionReport = {
      dryRun: input.dryRun === true,
      counts: Object.fromEntries(kinds.map((kind) => [kind, 0])),
      byOrganization: {},
      batches: 0,
      done: false,
    };
    const add = (kind: string, removed: RetentionCount[] | number): number => {
      if (typeof removed === 'number') {
        report.counts[kind] += removed;
        return removed;
      }
      let total = 0;
      for (const { organizationId, count } of removed) {
        if (count === 0) continue;
        const org = (report.byOrganization[organizationId] ??= {});
        org[kind] = (org[kind] ?? 0) + count;
        total += count;
      }
      report.counts[kind] += total;
      return total;
    };

    if (report.dryRun) {
      for (const kind of kinds) add(kind, await measure(kind));
      report.done = true;
      return report;
    }

    const batchSize = Math.max(1, Math.floor(deps.batchSize));
    let index = Math.max(0, Math.floor(input.from ?? 0));
    while (index < kinds.length) {
      if (input.maxBatches !== undefined && report.batches >= input.maxBatches) {
        report.next = index;
        return report;
      }
      const kind = kinds[index];
      const removed = add(kind, await measure(kind, batchSize));
      report.batches += 1;
      if (removed > 0) deps.metrics?.retentionDeleted(kind, removed);
      input.onBatch?.({ kind, removed });
      // A short batch: this kind has nothing more to remove now.
      if (removed < batchSize) index += 1;
    }
    report.done = true;
    return report;
  };
}

export type ApplyRetention = ReturnType<typeof applyRetention>;
