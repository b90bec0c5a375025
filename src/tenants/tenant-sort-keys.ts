import { type SortField } from './dto/list-tenants.query.js';

// The tenant list's sort orders as SQL, for TenantRepository alone: one literal per field and direction.

/** The sort key of a row, exactly (timestamps to the microsecond, as text), and its id. */
export interface AnchorKey {
  value: string;
  id: string;
}

/** Which page of a list, in which order; after an anchor, `offset` counts from it. */
export interface TenantPageQuery {
  field: SortField;
  descending: boolean;
  offset: number;
  size: number;
  after?: AnchorKey;
}

export type Directed = Record<'ASC' | 'DESC', string>;

/**
 * Per sort field: its property, its key as exact text, the rows after an anchor (by id alone for the
 * primary key, not a row comparison it holds no index for) and the row numbers of a walk.
 */
export const sortKeys: Record<
  SortField,
  { property: string; text: string; after: Directed; numbered: Directed }
> = {
  id: {
    property: 'tenant.id',
    // Not the bare column, which TypeORM would merge with the walk's own `tenant.id`.
    text: 'CAST(tenant.id AS text)',
    after: { ASC: 'tenant.id > :anchorId', DESC: 'tenant.id < :anchorId' },
    numbered: {
      ASC: 'row_number() OVER (ORDER BY tenant.id ASC)',
      DESC: 'row_number() OVER (ORDER BY tenant.id DESC)',
    },
  },
  label: {
    property: 'tenant.label',
    text: 'tenant.label',
    after: {
      ASC: '(tenant.label, tenant.id) > (:anchorValue, :anchorId)',
      DESC: '(tenant.label, tenant.id) < (:anchorValue, :anchorId)',
    },
    numbered: {
      ASC: 'row_number() OVER (ORDER BY tenant.label ASC, tenant.id ASC)',
      DESC: 'row_number() OVER (ORDER BY tenant.label DESC, tenant.id DESC)',
    },
  },
  createdAt: {
    property: 'tenant.createdAt',
    text: `to_char(tenant.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
    after: {
      ASC: '(tenant.created_at, tenant.id) > (CAST(:anchorValue AS timestamptz), :anchorId)',
      DESC: '(tenant.created_at, tenant.id) < (CAST(:anchorValue AS timestamptz), :anchorId)',
    },
    numbered: {
      ASC: 'row_number() OVER (ORDER BY tenant.created_at ASC, tenant.id ASC)',
      DESC: 'row_number() OVER (ORDER BY tenant.created_at DESC, tenant.id DESC)',
    },
  },
  updatedAt: {
    property: 'tenant.updatedAt',
    text: `to_char(tenant.updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`,
    after: {
      ASC: '(tenant.updated_at, tenant.id) > (CAST(:anchorValue AS timestamptz), :anchorId)',
      DESC: '(tenant.updated_at, tenant.id) < (CAST(:anchorValue AS timestamptz), :anchorId)',
    },
    numbered: {
      ASC: 'row_number() OVER (ORDER BY tenant.updated_at ASC, tenant.id ASC)',
      DESC: 'row_number() OVER (ORDER BY tenant.updated_at DESC, tenant.id DESC)',
    },
  },
};
