import { checkProblemTypes, type CheckProblem } from '../credential.errors.js';
import { asArray, issuerIdOf } from '../credential-checks.js';
import { entryStatus } from '../status/entry-status.js';
import { type RemoteStatusLists } from '../status/remote-status-lists.js';
import { type KnownDid, type StatusListsService } from '../status/status-lists.service.js';
import { remoteStatusListLimits } from '../verification-limits.js';
import { mapAtMost, statusSetDetail } from './verification-findings.js';

type Json = Record<string, unknown>;

/** What is wrong with a status list credential from elsewhere, or undefined when it verifies. */
export type ListProblem = (list: Json) => Promise<string | undefined>;

/**
 * A credential's status check (docs/credentials.md): every BitstringStatusListEntry's bit, read from
 * our own lists' rows or from a list fetched from elsewhere, which `listProblem` verifies.
 */
export class CredentialStatusChecks {
  constructor(
    private readonly statusLists: StatusListsService,
    private readonly remoteLists: RemoteStatusLists,
  ) {}

  /** Each BitstringStatusListEntry: its bit must be clear in the list it names. */
  async problems(
    credential: Json,
    deadline: AbortSignal,
    verifying: KnownDid | undefined,
    listProblem: ListProblem,
  ): Promise<CheckProblem[]> {
    const issuer = issuerIdOf(credential);
    const entries = asArray(credential.credentialStatus).map((entry) => (entry ?? {}) as Json);
    const bits = await mapAtMost(entries, remoteStatusListLimits.fetchesAtOnce, (entry) =>
      entry.type === 'BitstringStatusListEntry'
        ? this.statusBit(entry, issuer, deadline, verifying, listProblem)
        : Promise.resolve(`unsupported status entry type ${JSON.stringify(entry.type)}`),
    );
    const problems: CheckProblem[] = [];
    for (const [index, bit] of bits.entries()) {
      const { statusPurpose } = entries[index];
      if (typeof bit === 'string') {
        problems.push({
          type: checkProblemTypes.statusRetrieval,
          check: 'status',
          title: 'Status could not be read',
          detail: bit,
        });
      } else if (bit) {
        problems.push({
          type: checkProblemTypes.status,
          check: 'status',
          title: 'Status set',
          detail: statusSetDetail(statusPurpose),
        });
      }
    }
    return problems;
  }

  /**
   * The entry's bit, or why it cannot be read. A list of ours is read from the database; any other is
   * fetched, and must be a list of the same purpose, signed by the credential's issuer (§3.2).
   */
  private async statusBit(
    entry: Json,
    issuer: string | undefined,
    deadline: AbortSignal,
    verifying: KnownDid | undefined,
    listProblem: ListProblem,
  ): Promise<boolean | string> {
    const { statusPurpose, statusListIndex, statusListCredential: url } = entry;
    if (typeof url !== 'string') return 'the entry names no statusListCredential';
    const ours = this.statusLists.listOfUrl(url);
    if (ours !== undefined) {
      return this.statusLists.bitOf(
        ours.tenantId,
        ours.listId,
        statusListIndex,
        String(statusPurpose),
        issuer,
        verifying,
      );
    }
    const list = await this.remoteLists.read(url, listProblem, deadline);
    if (typeof list === 'string') return list;
    if (list.issuer !== issuer) {
      return `the status list ${url} is issued by '${list.issuer}', not by the credential's issuer`;
    }
    if (!list.purposes.includes(String(statusPurpose))) {
      return `the status list ${url} is for ${list.purposes.join(', ')}, not ${String(statusPurpose)}`;
    }
    const status = entryStatus(entry, list.bits);
    if (typeof status === 'string') return `the status list ${url}: ${status}`;
    // Only these purposes invalidate: a message or refresh status informs, it does not fail.
    return (statusPurpose === 'revocation' || statusPurpose === 'suspension') && status !== 0;
  }
}
