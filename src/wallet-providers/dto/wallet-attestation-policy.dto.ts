import { ApiProperty } from '@nestjs/swagger';
import { IsIn } from 'class-validator';
import {
  type WalletAttestationSetting,
  walletAttestationSettings,
} from '../wallet-attestation-policy.entity.js';

export class WalletAttestationPolicyDto {
  @ApiProperty({
    enum: walletAttestationSettings,
    description:
      'Whether the token endpoint requires a wallet attestation (OAuth-Client-Attestation headers). Without an explicit choice: required once the tenant lists a wallet provider, optional while it lists none.',
    example: 'required',
  })
  walletAttestation!: WalletAttestationSetting;

  @ApiProperty({
    description: 'Whether the tenant chose the setting (false: the default applies).',
    example: false,
  })
  explicit!: boolean;
}

export class SetWalletAttestationPolicyDto {
  @ApiProperty({
    // OpenAPI 3.0: a nullable enum names null among its values.
    enum: [...walletAttestationSettings, null],
    nullable: true,
    description: 'The setting to keep, or null to go back to the default.',
    example: 'optional',
  })
  @IsIn([...walletAttestationSettings, null], { message: 'must be required, optional or null' })
  walletAttestation!: WalletAttestationSetting | null;
}
