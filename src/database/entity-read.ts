import {
  type DataSource,
  type EntityManager,
  type EntityTarget,
  type ObjectLiteral,
} from 'typeorm';

/** Column types TypeORM converts in JavaScript after the read: a raw row would not carry them. */
const convertedTypes: ReadonlySet<unknown> = new Set([
  'simple-json',
  'simple-array',
  'simple-enum',
]);

/**
 * A hot path's read of an entity by equal columns, as one statement written once from TypeORM's
 * metadata (`DataSource.getMetadata`, its public API), instead of the query builder building the same
 * SELECT at every call (docs/performance.md). Rows arrive as `pg` reads them, which is what TypeORM
 * answers for the column types allowed here; an entity with a converted column or a transformer is
 * refused when the read is made, not misread later.
 */
export class EntityRead<Entity extends ObjectLiteral, Key extends keyof Entity & string> {
  private statement: string | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly target: EntityTarget<Entity>,
    private readonly keys: readonly Key[],
    /** The selected properties; every column when absent. */
    private readonly selected?: readonly (keyof Entity & string)[],
    /**
     * A constant list of further columns over the key parameters ($1 the first key), each named
     * (`AS "name"`) by no property of the entity.
     */
    private readonly also?: string,
  ) {}

  /** The entity whose key columns equal `values`, or null. */
  async one(values: Pick<Entity, Key>, manager?: EntityManager): Promise<Entity | null> {
    const [row] = await this.all(values, manager);
    return row ?? null;
  }

  /** Every entity whose key columns equal `values`, in no particular order. */
  all(values: Pick<Entity, Key>, manager?: EntityManager): Promise<Entity[]> {
    const parameters = this.keys.map((key) => values[key]);
    return (manager ?? this.dataSource.manager).query<Entity[]>(this.text(), parameters);
  }

  private text(): string {
    if (this.statement !== undefined) return this.statement;
    const metadata = this.dataSource.getMetadata(this.target);
    const columnOf = (property: string) => {
      const column = metadata.findColumnWithPropertyName(property);
      if (column === undefined) throw new Error(`${metadata.name} has no column ${property}`);
      if (column.transformer !== undefined || convertedTypes.has(column.type)) {
        throw new Error(
          `${metadata.name}.${property} is converted by TypeORM: read it with a find`,
        );
      }
      return `"${column.databaseName}"`;
    };
    const selected = this.selected ?? metadata.columns.map((column) => column.propertyName);
    // A further column named as a property would silently replace it in the row.
    const aliases = [...(this.also ?? '').matchAll(/\bAS\s+"?(\w+)"?/gi)].map(([, name]) =>
      name.toLowerCase(),
    );
    const shadowed = metadata.columns.find(({ propertyName }) =>
      aliases.includes(propertyName.toLowerCase()),
    );
    if (shadowed !== undefined) {
      throw new Error(
        `${metadata.name}.${shadowed.propertyName} is named again by a further column`,
      );
    }
    const list = [
      ...selected.map((property) => `${columnOf(property)} AS "${property}"`),
      ...(this.also === undefined ? [] : [this.also]),
    ].join(', ');
    const where = this.keys.map((key, index) => `${columnOf(key)} = $${index + 1}`).join(' AND ');
    const table = metadata.tablePath
      .split('.')
      .map((part) => `"${part}"`)
      .join('.');
    this.statement = `SELECT ${list} FROM ${table} WHERE ${where}`;
    return this.statement;
  }
}
