import { storableText } from '../domain/columnLimits.js';
import { newId } from '../domain/ids.js';
import type { NewWebhookDelivery, WebhookStore, DeliveryWithAttempts } from '../domain/ports/webhookStore.js';
import type {
  DeliveryStatus,
  WebhookAttempt,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEvent,
  WebhookPayload,
} from '../domain/webhooks/webhook.js';
import type { Db } from './connection.js';
import { findProject } from './projects.js';
import { camelRow, camelRows, type Camel, type RowIsNoun, type Same } from './rows.js';

/** webhook_endpoints (migration 065), as SQL spells it. */
export interface WebhookEndpointRow {
  id: string;
  organization_id: string;
  project_id: string | null;
  url: string;
  description: string;
  events: WebhookEvent[];
  secret_enc: string;
  enabled: boolean;
  created_by_key_id: string | null;
  created_at: Date;
  updated_at: Date;
}

/** webhook_deliveries (migration 065). */
export interface WebhookDeliveryRow {
  id: string;
  endpoint_id: string;
  message_id: string;
  event_type: string;
  payload: WebhookPayload;
  redelivery_of: string | null;
  status: DeliveryStatus;
  created_at: Date;
  finished_at: Date | null;
}

/** webhook_attempts (migration 065). */
export interface WebhookAttemptRow {
  delivery_id: string;
  attempt: number;
  attempted_at: Date;
  succeeded: boolean;
  status_code: number | null;
  duration_ms: number;
  response_excerpt: string | null;
  error: string | null;
}

type _EndpointIsRow = RowIsNoun<Same<Camel<WebhookEndpointRow>, WebhookEndpoint>>;
type _DeliveryIsRow = RowIsNoun<Same<Camel<WebhookDeliveryRow>, WebhookDelivery>>;
type _AttemptIsRow = RowIsNoun<Same<Camel<WebhookAttemptRow>, WebhookAttempt>>;

/** The columns' own bounds (migration 065). */
const EXCERPT_MAX = 1024;
const ERROR_MAX = 1000;
const clip = (text: string | null, max: number) => {
  if (text === null) return null;
  const storable = storableText(text);
  return storable.length <= max ? storable : `${storable.slice(0, max - 1)}\u2026`;
};

/** Webhook endpoints, deliveries and attempts (domain/ports/webhookStore.ts) on a pool or a transaction of it. */
export function createWebhookStore(sql: Db): WebhookStore {
  const endpoint = (rows: WebhookEndpointRow[]) => camelRow(rows[0]) as WebhookEndpoint | undefined;
  const delivery = (rows: WebhookDeliveryRow[]) => camelRow(rows[0]) as WebhookDelivery | undefined;
  const withAttempts = async (deliveries: WebhookDelivery[]): Promise<DeliveryWithAttempts[]> => {
    if (deliveries.length === 0) return [];
    const attempts = camelRows(
      await sql<WebhookAttemptRow[]>`
        SELECT * FROM webhook_attempts WHERE delivery_id IN ${sql(deliveries.map((d) => d.id))}
        ORDER BY delivery_id, attempt`,
    ) as WebhookAttempt[];
    return deliveries.map((d) => ({ ...d, attempts: attempts.filter((a) => a.deliveryId === d.id) }));
  };
  return {
    visibleProject: (principal, projectId) => findProject(sql, principal, projectId),
    createEndpoint: async (e) =>
      endpoint(
        await sql<WebhookEndpointRow[]>`
        INSERT INTO webhook_endpoints (id, organization_id, project_id, url, description, events, secret_enc, enabled,
                                       created_by_key_id)
        VALUES (${newId('whk')}, ${e.organizationId}, ${e.projectId}, ${storableText(e.url)},
                ${storableText(e.description)}, ${e.events}, ${e.secretEnc}, ${e.enabled}, ${e.createdByKeyId})
        RETURNING *`,
      )!,
    endpoint: async (organizationId, endpointId) =>
      endpoint(
        await sql<WebhookEndpointRow[]>`
        SELECT * FROM webhook_endpoints WHERE organization_id = ${organizationId} AND id = ${endpointId}`,
      ),
    endpoints: async (organizationId, scope, { after, limit }) =>
      camelRows(
        await sql<WebhookEndpointRow[]>`
        SELECT * FROM webhook_endpoints
        WHERE organization_id = ${organizationId}
          AND ${scope.projectId === null ? sql`project_id IS NULL` : sql`project_id = ${scope.projectId}`}
          ${after ? sql`AND (created_at, id) < (${new Date(after.createdAt)}, ${after.id})` : sql``}
        ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
      ) as WebhookEndpoint[],
    async countEndpoints(organizationId, scope) {
      const [row] = await sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM webhook_endpoints
        WHERE organization_id = ${organizationId}
          AND ${scope.projectId === null ? sql`project_id IS NULL` : sql`project_id = ${scope.projectId}`}`;
      return row.n;
    },
    async updateEndpoint(endpointId, changes) {
      const set: Record<string, unknown> = {};
      if (changes.url !== undefined) set.url = storableText(changes.url);
      if (changes.description !== undefined) set.description = storableText(changes.description);
      if (changes.events !== undefined) set.events = changes.events;
      if (changes.enabled !== undefined) set.enabled = changes.enabled;
      if (changes.secretEnc !== undefined) set.secret_enc = changes.secretEnc;
      if (Object.keys(set).length === 0)
        return endpoint(await sql<WebhookEndpointRow[]>`SELECT * FROM webhook_endpoints WHERE id = ${endpointId}`);
      return endpoint(
        await sql<WebhookEndpointRow[]>`
        UPDATE webhook_endpoints SET ${sql(set)}, updated_at = clock_timestamp() WHERE id = ${endpointId} RETURNING *`,
      );
    },
    async deleteEndpoint(endpointId) {
      const done = await sql`DELETE FROM webhook_endpoints WHERE id = ${endpointId}`;
      return done.count > 0;
    },
    subscribers: async (organizationId, projectId, event) =>
      camelRows(
        await sql<WebhookEndpointRow[]>`
        SELECT * FROM webhook_endpoints
        WHERE organization_id = ${organizationId} AND (project_id IS NULL OR project_id = ${projectId})
          AND enabled AND ${event} = ANY(events)
        ORDER BY created_at, id`,
      ) as WebhookEndpoint[],
    async createDelivery(d: NewWebhookDelivery) {
      const created = delivery(
        await sql<WebhookDeliveryRow[]>`
        INSERT INTO webhook_deliveries (id, endpoint_id, message_id, event_type, payload, redelivery_of)
        VALUES (${newId('whd')}, ${d.endpointId}, ${d.messageId}, ${d.eventType}, ${sql.json(d.payload as never)},
                ${d.redeliveryOf})
        ON CONFLICT (endpoint_id, message_id) WHERE redelivery_of IS NULL DO NOTHING
        RETURNING *`,
      );
      if (created) return { delivery: created, created: true };
      const existing = delivery(
        await sql<WebhookDeliveryRow[]>`
        SELECT * FROM webhook_deliveries
        WHERE endpoint_id = ${d.endpointId} AND message_id = ${d.messageId} AND redelivery_of IS NULL`,
      );
      return { delivery: existing!, created: false };
    },
    async delivery(endpointId, deliveryId) {
      const found = delivery(
        await sql<WebhookDeliveryRow[]>`
        SELECT * FROM webhook_deliveries WHERE endpoint_id = ${endpointId} AND id = ${deliveryId}`,
      );
      return found ? (await withAttempts([found]))[0] : undefined;
    },
    async deliveryToSend(deliveryId) {
      const found = delivery(
        await sql<WebhookDeliveryRow[]>`SELECT * FROM webhook_deliveries WHERE id = ${deliveryId}`,
      );
      if (!found) return undefined;
      const owner = endpoint(
        await sql<WebhookEndpointRow[]>`SELECT * FROM webhook_endpoints WHERE id = ${found.endpointId}`,
      );
      return owner ? { delivery: found, endpoint: owner } : undefined;
    },
    deliveries: async (endpointId, { after, limit }) =>
      await withAttempts(
        camelRows(
          await sql<WebhookDeliveryRow[]>`
          SELECT * FROM webhook_deliveries WHERE endpoint_id = ${endpointId}
          ${after ? sql`AND (created_at, id) < (${new Date(after.createdAt)}, ${after.id})` : sql``}
          ORDER BY created_at DESC, id DESC LIMIT ${limit}`,
        ) as WebhookDelivery[],
      ),
    async recordAttempt(a) {
      await sql`
        INSERT INTO webhook_attempts (delivery_id, attempt, succeeded, status_code, duration_ms, response_excerpt, error)
        VALUES (${a.deliveryId}, ${a.attempt}, ${a.succeeded}, ${a.statusCode}, ${Math.max(0, Math.round(a.durationMs))},
                ${clip(a.responseExcerpt, EXCERPT_MAX)}, ${clip(a.error, ERROR_MAX)})
        ON CONFLICT (delivery_id, attempt) DO UPDATE
        SET attempted_at = now(), succeeded = EXCLUDED.succeeded, status_code = EXCLUDED.status_code,
            duration_ms = EXCLUDED.duration_ms, response_excerpt = EXCLUDED.response_excerpt, error = EXCLUDED.error`;
    },
    async finishDelivery(deliveryId, status) {
      const done = await sql`
        UPDATE webhook_deliveries SET status = ${status}, finished_at = now()
        WHERE id = ${deliveryId} AND status = 'pending'`;
      return done.count > 0;
    },
    async suiteName(suiteId) {
      const [row] = await sql<{ name: string }[]>`SELECT name FROM eval_suites WHERE id = ${suiteId}`;
      return row?.name;
    },
  };
}
