/** A parameter's name where the statement uses it: `:name`, not a `::type` cast nor inside a quoted literal. */
const tokens = /'(?:[^']|'')*'|"(?:[^"]|"")*"|::|:([A-Za-z_][A-Za-z0-9_]*)/g;

/**
 * A statement written whole, each parameter named where it is used (`:tenantId`), turned once into
 * PostgreSQL's numbered form (`$1`, `$2`, ...): a name used twice is one parameter, and the values are
 * given by name, so no caller counts positions. An array slice's colon is written with spaces
 * (`a[i : j]`), or `:j` would read as a name.
 */
export class NamedStatement<Values extends Record<string, unknown>> {
  /** The statement as PostgreSQL takes it. */
  readonly text: string;
  private readonly names: (keyof Values & string)[] = [];

  constructor(named: string) {
    this.text = named.replace(tokens, (token, name?: string) => {
      if (name === undefined) return token;
      let at = this.names.indexOf(name);
      if (at < 0) at = this.names.push(name) - 1;
      return `$${at + 1}`;
    });
  }

  /** The values in the statement's order; a name without a value is an error, not a silent null. */
  values(values: Values): unknown[] {
    return this.names.map((name) => {
      if (!(name in values)) throw new Error(`No value for the statement's parameter :${name}`);
      return values[name];
    });
  }
}
