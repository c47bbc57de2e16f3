import type { Db } from './connection.js';
import type { ModelPrice } from '../domain/models/prices.js';

/** An organization's own price of a model (migration 060), over the shipped defaults (domain/models/prices.ts). */
export interface OrganizationModelPrice extends ModelPrice {
  /** the price key, `<provider>/<name>` */
  model: string;
  updatedAt: Date;
}

interface PriceRow {
  model: string;
  input_per_mtok: number;
  output_per_mtok: number;
  cached_input_per_mtok: number | null;
  updated_at: Date;
}

const toPrice = (row: PriceRow): OrganizationModelPrice => ({
  model: row.model,
  inputPerMTok: row.input_per_mtok,
  outputPerMTok: row.output_per_mtok,
  ...(row.cached_input_per_mtok !== null && { cachedInputPerMTok: row.cached_input_per_mtok }),
  updatedAt: row.updated_at,
});

/** The organization's own prices, by model. */
export async function listModelPrices(sql: Db, organizationId: string): Promise<OrganizationModelPrice[]> {
  const rows = await sql<PriceRow[]>`
    SELECT model, input_per_mtok, output_per_mtok, cached_input_per_mtok, updated_at
    FROM organization_model_prices WHERE organization_id = ${organizationId} ORDER BY model`;
  return rows.map(toPrice);
}

/** The organization's own prices as a lookup's overrides (domain/models/prices.ts priceLookup). */
export async function modelPriceOverrides(sql: Db, organizationId: string): Promise<Record<string, ModelPrice>> {
  const prices = await listModelPrices(sql, organizationId);
  return Object.fromEntries(prices.map(({ model, updatedAt: _, ...price }) => [model, price]));
}

/** Sets (or replaces) the organization's price of a model. */
export async function setModelPrice(
  sql: Db,
  organizationId: string,
  model: string,
  price: ModelPrice,
): Promise<OrganizationModelPrice> {
  const [row] = await sql<PriceRow[]>`
    INSERT INTO organization_model_prices (organization_id, model, input_per_mtok, output_per_mtok, cached_input_per_mtok)
    VALUES (${organizationId}, ${model}, ${price.inputPerMTok}, ${price.outputPerMTok}, ${price.cachedInputPerMTok ?? null})
    ON CONFLICT (organization_id, model) DO UPDATE SET input_per_mtok = EXCLUDED.input_per_mtok,
      output_per_mtok = EXCLUDED.output_per_mtok, cached_input_per_mtok = EXCLUDED.cached_input_per_mtok,
      updated_at = clock_timestamp()
    RETURNING model, input_per_mtok, output_per_mtok, cached_input_per_mtok, updated_at`;
  return toPrice(row);
}

/** Drops the organization's own price of a model (the default applies again); whether there was one. */
export async function deleteModelPrice(sql: Db, organizationId: string, model: string): Promise<boolean> {
  const rows = await sql`
    DELETE FROM organization_model_prices WHERE organization_id = ${organizationId} AND model = ${model} RETURNING model`;
  return rows.length > 0;
}
