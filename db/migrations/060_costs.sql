-- Issue 31, cost: what every iteration cost, and the prices an organization sets for its models.

-- The input tokens an iteration read from the provider's prompt cache (counted within input_tokens), and what the
-- iteration cost in USD at the prices of its organization when it finished: NULL when its model has no known price
-- (and for iterations recorded before costs were), never 0 for unknown.
ALTER TABLE eval_iterations
  ADD COLUMN cached_input_tokens integer NOT NULL DEFAULT 0 CHECK (cached_input_tokens >= 0),
  ADD COLUMN cost_usd double precision CHECK (cost_usd >= 0);

-- An organization's own price of a model (runway-admin model-prices), USD per million tokens, over the shipped
-- defaults (domain/models/prices.ts). `model` is the price key `<provider>/<name>`.
CREATE TABLE organization_model_prices (
  organization_id text NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
  model text NOT NULL CHECK (length(model) BETWEEN 3 AND 300),
  input_per_mtok double precision NOT NULL CHECK (input_per_mtok >= 0),
  output_per_mtok double precision NOT NULL CHECK (output_per_mtok >= 0),
  cached_input_per_mtok double precision CHECK (cached_input_per_mtok >= 0),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  PRIMARY KEY (organization_id, model)
);
