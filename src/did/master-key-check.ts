import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { type DataSource } from 'typeorm';
import { KeyVault } from './key-vault.js';
import { countByKeyId, labelOf } from './sealed-columns.js';

/**
 * At boot, tells the operator what the master keys mean for the stored boxes: a warning per key id that
 * boxes name but this instance lacks (those tenants cannot sign), and whether `npm run keys:rewrap` is
 * still to run. Never stops the boot: the other tenants work.
 */
@Injectable()
export class MasterKeyCheck implements OnApplicationBootstrap {
  private readonly logger = new Logger('MasterKeys');

  constructor(
    @InjectDataSource() private readonly dataSource: DataSource,
    @Inject(KeyVault) private readonly vault: KeyVault,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    try {
      await this.check();
    } catch (error) {
      this.logger.warn({
        msg: `Could not count the sealed keys per master key: ${(error as Error).message}`,
        event: 'master-key.check-failed',
      });
    }
  }

  private async check(): Promise<void> {
    const counts = await countByKeyId((sql) => this.dataSource.query(sql));
    let previous = 0;
    for (const { column, keyId, count } of counts) {
      if (keyId === null || keyId === this.vault.masterKeyId) continue;
      if (this.vault.has(keyId)) {
        previous += count;
        continue;
      }
      this.logger.warn({
        msg: `${count} sealed values in ${labelOf(column)} name master key ${keyId}, which this instance does not have: they cannot be opened until it is added to AGENT_PREVIOUS_MASTER_KEYS`,
        event: 'master-key.unknown',
        masterKeyId: keyId,
        column: labelOf(column),
        count,
      });
    }
    if (previous > 0) {
      this.logger.log({
        msg: `${previous} sealed values are under previous master keys: run npm run keys:rewrap, then empty AGENT_PREVIOUS_MASTER_KEYS`,
        event: 'master-key.previous-in-use',
        count: previous,
      });
    } else if (this.vault.previousMasterKeyIds.length > 0) {
      this.logger.log({
        msg: 'No sealed value is under a previous master key: AGENT_PREVIOUS_MASTER_KEYS can be emptied',
        event: 'master-key.previous-unused',
      });
    }
  }
}
