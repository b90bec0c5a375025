import { type StatusPurpose } from '../status/bitstring.js';

/*
 * The call of `record_issue`, the function credentials/issuing/ publishes (RecordIssue1795800200000)
 * for the statements that record an issue: the API's issue statement and the OpenID4VCI credential
 * endpoint's, which takes its offer in the same statement (docs/architecture.md).
 */

/** What an issuance records: never the credential's claims. */
export interface IssuanceRecord {
  tenantId: string;
  id: string;
  types: string[];
  cryptosuite: string;
  issuedBy: string;
  /** `ldp_vc` when absent. */
  format?: string;
  /** The OpenID4VCI offer and configuration it was issued for, if any. */
  offerId?: string | null;
  configurationId?: string | null;
}

/** An issue with status entries: the record, the entries' random candidates and the event's row. */
export interface IssueStatement {
  record: IssuanceRecord;
  /** The status purposes to take an entry of, in order, each with its random candidate indices. */
  takes: { purpose: StatusPurpose; candidates: number[] }[];
  /** The credential.issued event as one jsonb row (`EventOutbox.inStatement`). */
  event: string;
}

/** An index the issue statement took in a list: its entry's primary key. */
export interface Taken {
  list_id: string;
  list_index: number;
}

/** The entries the issue statement took, by purpose; a purpose it could not take is absent. */
export type TakenOnIssue = Partial<Record<StatusPurpose, Taken>>;

/** The values of a `record_issue` call (RecordIssue1795800200000), by name. */
export type RecordIssueValues = {
  tenantId: string;
  id: string;
  types: string[];
  cryptosuite: string;
  issuedBy: string;
  format: string;
  offerId: string | null;
  configurationId: string | null;
  purposes: StatusPurpose[];
  candidates: number[][];
  event: string;
};

/**
 * The call of `record_issue` with the named parameters of `RecordIssueValues`, each name after
 * `suffix` (`:id0`), for a statement that records several credentials.
 */
export function recordIssueCall(suffix: string): string {
  const names = ['tenantId', 'id', 'types', 'cryptosuite', 'issuedBy', 'format', 'offerId'];
  const [tenant, id, types, cryptosuite, issuedBy, format, offer] = names.map(
    (name) => `:${name}${suffix}`,
  );
  return (
    `record_issue(${tenant}, ${id}, ${types}::text[], ${cryptosuite}, ${issuedBy}, ${format}, ` +
    `${offer}::uuid, :configurationId${suffix}, :purposes${suffix}::varchar[], ` +
    `:candidates${suffix}::int[][], :event${suffix}::jsonb)`
  );
}

/** What `record_issue` takes for an issue statement. */
export function recordIssueValuesOf({ record, takes, event }: IssueStatement): RecordIssueValues {
  return {
    tenantId: record.tenantId,
    id: record.id,
    types: record.types,
    cryptosuite: record.cryptosuite,
    issuedBy: record.issuedBy,
    format: record.format ?? 'ldp_vc',
    offerId: record.offerId ?? null,
    configurationId: record.configurationId ?? null,
    purposes: takes.map((take) => take.purpose),
    candidates: takes.map((take) => take.candidates),
    event,
  };
}

/** The values of `recordIssueCall(suffix)` for a statement that names them with `suffix`. */
export function recordIssueValues(
  values: RecordIssueValues,
  suffix: string,
): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(values).map(([name, value]) => [`${name}${suffix}`, value]),
  );
}
