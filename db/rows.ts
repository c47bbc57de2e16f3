import postgres from 'postgres';

/*
 * Database modules return camelCase domain objects: each declares its row as the table spells it (`RunRow`, snake
 * case) and returns `Camel<RunRow>`, made by camelRow from what the query read. Where the domain declares the noun
 * (`Run`, domain/evals/run.ts), the module checks that `Camel<RunRow>` is exactly it (RowIsNoun below). One mechanism
 * for all of db/, chosen over the connection's `transform: postgres.camel` option because:
 * - that option applies to every query on the pool, also the SQL that tests, the CLI and migrations run
 *   themselves and read in the table's own words (information_schema's table_name, a test's run.organization_id);
 * - postgres.camel also renames the keys inside json and jsonb values (a run's summary, a case's match options, a
 *   host's config are stored as the caller gave them and must come back as given).
 * camelRow renames the row's own columns with postgres.toCamel (the option's column rename) and nothing inside them.
 */

/** A snake_case column name in camelCase, as postgres.toCamel spells it at run time. */
export type CamelCase<Name extends string> = Name extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<CamelCase<Tail>>}`
  : Name;

/** A row as a domain object: its columns renamed to camelCase, their values (json included) as they are. */
export type Camel<Row> = { [Column in keyof Row as Column extends string ? CamelCase<Column> : Column]: Row[Column] };

/** The row with its columns in camelCase; undefined stays undefined (a query that found no row). */
export function camelRow<Row extends object>(row: Row): Camel<Row>;
export function camelRow<Row extends object>(row: Row | undefined): Camel<Row> | undefined;
export function camelRow<Row extends object>(row: Row | undefined): Camel<Row> | undefined {
  if (row === undefined) return undefined;
  return Object.fromEntries(
    Object.entries(row).map(([column, value]) => [postgres.toCamel(column), value]),
  ) as Camel<Row>;
}

/** Every row of a result with its columns in camelCase. */
export const camelRows = <Row extends object>(rows: readonly Row[]): Camel<Row>[] => rows.map((row) => camelRow(row));

/**
 * `true` exactly when A and B are the same type (each property the same, optional and readonly alike), else `false`:
 * mutual assignability would let an optional property on one side pass.
 */
export type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/**
 * Compiles only for `true`: `type _RunIsRow = RowIsNoun<Same<Camel<RunRow>, Run>>` next to a row type makes a column
 * added to the row or a field added to the domain's noun, without the other, fail the type check.
 */
export type RowIsNoun<Check extends true> = Check;
