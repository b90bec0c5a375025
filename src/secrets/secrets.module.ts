import { Module, type DynamicModule } from '@nestjs/common';
import { KeyVault } from './key-vault.js';
import { registerSealedColumns, type SealedColumn } from './sealed-columns.js';

/** What a feature's `imports` get from `forFeature`: nothing to inject, the vault is global. */
@Module({})
class SealedColumnsRegistration {}

/**
 * Master-key management: the one KeyVault every feature seals with, and the registry of sealed columns
 * that rotation (`npm run keys:rewrap`) and the boot check read. Knows no feature: features register.
 */
@Module({})
export class SecretsModule {
  /** The vault opened at start (`openKeyVault`), global: the raw keys stay inside it. */
  static forRoot(vault: KeyVault): DynamicModule {
    return {
      module: SecretsModule,
      global: true,
      providers: [{ provide: KeyVault, useValue: vault }],
      exports: [KeyVault],
    };
  }

  /**
   * A feature's sealed columns, in its module's `imports`: registered when the module file is loaded, so
   * that the rewrap command, which loads the module tree without starting it, sees them too.
   */
  static forFeature(columns: readonly SealedColumn[]): DynamicModule {
    registerSealedColumns(columns);
    return { module: SealedColumnsRegistration };
  }
}
