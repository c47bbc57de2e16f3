/**
 * Retention (issue 33): what Runway keeps and for how long. The deployment sets defaults (RETENTION_TRACE_DAYS,
 * RETENTION_RUN_DAYS); an organization may override each field with its own day count, or keep for ever. Pure: the
 * store (db/retention.ts) reads the rows, this decides what they mean.
 */

/** Days something is kept, or null: kept for ever. */
export type RetentionDays = number | null;

/** A policy in effect: iteration traces and artifact blobs after `traceDays`, runs (with their iterations) after `runDays`. */
export interface RetentionPolicy {
  traceDays: RetentionDays;
  runDays: RetentionDays;
}

/** An organization's own setting of one field: a day count, `forever`, or `default` (the deployment's). */
export type RetentionSetting = number | 'forever' | 'default';

export interface OwnRetention {
  traceDays: RetentionSetting;
  runDays: RetentionSetting;
}

/** One organization's own settings, as stored. */
export interface StoredRetention {
  organizationId: string;
  organizationName: string;
  own: OwnRetention;
}

/** One organization's policy: its own settings and what is in effect. */
export interface OrganizationRetention extends StoredRetention {
  effective: RetentionPolicy;
}

/** The largest day count a policy takes (100 years; the column's CHECK says the same). */
export const MAX_RETENTION_DAYS = 36_500;

/** What is in effect: each field the organization's own, else the deployment's. */
export function effectivePolicy(own: OwnRetention, defaults: RetentionPolicy): RetentionPolicy {
  const pick = (setting: RetentionSetting, fallback: RetentionDays): RetentionDays =>
    setting === 'default' ? fallback : setting === 'forever' ? null : setting;
  return { traceDays: pick(own.traceDays, defaults.traceDays), runDays: pick(own.runDays, defaults.runDays) };
}

/** A setting as typed by an operator: a whole number of days within bounds, `forever` or `default`. */
export function parseRetentionSetting(value: string): RetentionSetting | undefined {
  if (value === 'forever' || value === 'default') return value;
  if (!/^\d+$/.test(value)) return undefined;
  const days = Number(value);
  return days >= 1 && days <= MAX_RETENTION_DAYS ? days : undefined;
}

/** How long an unused upload URL stays after it expired (so a late client still hears "expired"), then is purged. */
export const EXPIRED_UPLOAD_URL_GRACE_MS = 24 * 60 * 60 * 1000;

/**
 * What retention removes, in the order it works (each kind is disjoint from the others, so a dry run's counts are
 * what a real run then deletes):
 * - ingestBlobs: the uploaded bytes of an artifact whose run has ended (ingested already; the upload's reply and hash
 *   stay, so a retried upload still gets its first reply);
 * - iterations, runs: runs ended more than `runDays` ago, their iterations (and traces) first, in batches;
 * - traces: iteration traces older than `traceDays`, of ended runs (the iteration keeps its summary and says when
 *   its trace expired);
 * - artifactBlobs: other uploaded bytes older than `traceDays`;
 * - uploadUrls: upload URLs never used, expired for more than a day.
 */
export const RETENTION_KINDS = ['ingestBlobs', 'iterations', 'runs', 'traces', 'artifactBlobs', 'uploadUrls'] as const;
export type RetentionKind = (typeof RETENTION_KINDS)[number];
