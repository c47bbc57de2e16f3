/**
 * Where an organization's eval traces are exported over OTLP/HTTP (issue 33), besides the deployment's own endpoint:
 * set by the operator (`npm run admin -- otel set`), stored sealed (db/otlpTargets.ts).
 */
export interface OtlpTarget {
  /** the OTLP/HTTP traces URL, e.g. https://otlp.example.com/v1/traces */
  endpoint: string;
  /** sent with every export (an API key, a tenant) */
  headers: Record<string, string>;
}

export interface OtlpTargetStore {
  /** the organization's target; undefined when it has none */
  get(organizationId: string): Promise<OtlpTarget | undefined>;
  set(organizationId: string, target: OtlpTarget): Promise<void>;
  /** false when the organization had none */
  clear(organizationId: string): Promise<boolean>;
}
