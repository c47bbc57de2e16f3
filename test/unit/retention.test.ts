import { describe, expect, it } from 'vitest';
import type { RetentionCount, RetentionStore } from '../../domain/ports/retentionStore.js';
import {
  effectivePolicy,
  parseRetentionSetting,
  RETENTION_KINDS,
  type RetentionKind,
} from '../../domain/retention/policy.js';
import { applyRetention } from '../../domain/useCases/retention/applyRetention.js';
import { createMetrics } from '../../runtime/metrics.js';

/** A store holding `left` rows of each kind for one organization; purge removes up to the limit. */
function fakeStore(left: Partial<Record<RetentionKind, number>>) {
  const remaining: Record<string, number> = { ...left };
  const calls: string[] = [];
  const store: RetentionStore = {
    policies: async () => [],
    setPolicy: async () => undefined,
    count: async (kind): Promise<RetentionCount[]> => [{ organizationId: 'org_a', count: remaining[kind] ?? 0 }],
    purge: async (kind, _rules, limit): Promise<RetentionCount[]> => {
      calls.push(kind);
      const n = Math.min(limit, remaining[kind] ?? 0);
      remaining[kind] = (remaining[kind] ?? 0) - n;
      return n === 0 ? [] : [{ organizationId: 'org_a', count: n }];
    },
  };
  return { store, remaining, calls };
}

const defaults = { traceDays: 30, runDays: null };

describe('retention policy', () => {
  it("takes each field from the organization's own setting, else the deployment's", () => {
    expect(effectivePolicy({ traceDays: 'default', runDays: 'default' }, defaults)).toEqual(defaults);
    expect(effectivePolicy({ traceDays: 'forever', runDays: 60 }, defaults)).toEqual({ traceDays: null, runDays: 60 });
    expect(effectivePolicy({ traceDays: 7, runDays: 'forever' }, { traceDays: 30, runDays: 90 })).toEqual({
      traceDays: 7,
      runDays: null,
    });
  });

  it('reads an operator setting: days within bounds, forever or default', () => {
    expect(parseRetentionSetting('7')).toBe(7);
    expect(parseRetentionSetting('36500')).toBe(36_500);
    expect(parseRetentionSetting('forever')).toBe('forever');
    expect(parseRetentionSetting('default')).toBe('default');
    for (const bad of ['0', '36501', '-1', '1.5', 'soon', '', ' 7']) expect(parseRetentionSetting(bad)).toBeUndefined();
  });
});

describe('applyRetention', () => {
  it('removes every kind in batches until a short one, counting per kind, organization and metric', async () => {
    const { store, remaining, calls } = fakeStore({ traces: 5, runs: 2, uploadUrls: 1 });
    const metrics = createMetrics();
    const report = await applyRetention({ retention: store, defaults, batchSize: 2, metrics })();
    expect(report).toMatchObject({ dryRun: false, done: true });
    expect(report.counts).toEqual({
      ...Object.fromEntries(RETENTION_KINDS.map((k) => [k, 0])),
      traces: 5,
      runs: 2,
      uploadUrls: 1,
    });
    expect(report.byOrganization).toEqual({ org_a: { traces: 5, runs: 2, uploadUrls: 1 } });
    expect(Object.values(remaining).every((n) => n === 0)).toBe(true);
    // runs: 2 then 0 (a full batch asks again); traces 2, 2, 1
    expect(calls.filter((k) => k === 'runs')).toHaveLength(2);
    expect(calls.filter((k) => k === 'traces')).toHaveLength(3);
    expect(calls.indexOf('runs')).toBeLessThan(calls.indexOf('traces'));
    expect(report.batches).toBe(calls.length);
    const text = await metrics.registry.metrics();
    expect(text).toContain('runway_retention_deleted_total{kind="traces"} 5');
    expect(text).toContain('runway_retention_deleted_total{kind="runs"} 2');
  });

  it('stops after maxBatches and carries on from `next`, removing nothing twice', async () => {
    const { store, remaining } = fakeStore({ traces: 5 });
    const pass = applyRetention({ retention: store, defaults, batchSize: 2 });
    let report = await pass({ maxBatches: 2 });
    let removed = report.counts.traces;
    let calls = 1;
    while (!report.done) {
      expect(report.next).toEqual(expect.any(Number));
      report = await pass({ from: report.next, maxBatches: 2 });
      removed += report.counts.traces;
      calls += 1;
    }
    expect(removed).toBe(5);
    expect(remaining.traces).toBe(0);
    expect(calls).toBeGreaterThan(2);
  });

  it('a dry run counts every kind and removes nothing', async () => {
    const { store, remaining, calls } = fakeStore({ traces: 5, ingestBlobs: 3 });
    const report = await applyRetention({ retention: store, defaults, batchSize: 2 })({ dryRun: true });
    expect(report).toMatchObject({ dryRun: true, done: true, batches: 0 });
    expect(report.counts).toMatchObject({ traces: 5, ingestBlobs: 3, runs: 0 });
    expect(calls).toEqual([]);
    expect(remaining).toEqual({ traces: 5, ingestBlobs: 3 });
  });

  it('runs the deployment-wide purges after its own kinds (the idempotency keys hook)', async () => {
    const { store, calls } = fakeStore({ traces: 1 });
    let keys = 3;
    const purges = [
      {
        kind: 'idempotencyKeys',
        count: async () => keys,
        purge: async (limit: number) => {
          calls.push('idempotencyKeys');
          const n = Math.min(limit, keys);
          keys -= n;
          return n;
        },
      },
    ];
    const pass = applyRetention({ retention: store, defaults, batchSize: 2, purges });
    expect((await pass({ dryRun: true })).counts.idempotencyKeys).toBe(3);
    const report = await pass();
    expect(report.counts).toMatchObject({ traces: 1, idempotencyKeys: 3 });
    expect(report.byOrganization).toEqual({ org_a: { traces: 1 } });
    expect(calls.at(-1)).toBe('idempotencyKeys');
    expect(keys).toBe(0);
  });
});
