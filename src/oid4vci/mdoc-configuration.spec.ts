import { DomainException } from '../common/problem/domain.exception.js';
import { definitionOf, mdocDefaultExpiresIn } from './credential-configuration.rules.js';
import { type CredentialConfigurationBodyDto } from './dto/credential-configuration.dto.js';
import { type CredentialConfigurationDto } from './dto/credential-configuration-answer.dto.js';
import { credentialIssuerMetadata } from './issuer-metadata.js';

const ns = 'org.iso.18013.5.1';
const mdl = (
  extra: Partial<CredentialConfigurationBodyDto> = {},
): CredentialConfigurationBodyDto => ({
  format: 'mso_mdoc',
  doctype: 'org.iso.18013.5.1.mDL',
  claims: [
    { path: [ns, 'family_name'], mandatory: true, display: [{ name: 'Family name' }] },
    { path: [ns, 'birth_date'] },
  ],
  ...extra,
});

/** The refused fields of a definition, or [] when it passes. */
function refused(body: CredentialConfigurationBodyDto): string[] {
  try {
    definitionOf(body);
    return [];
  } catch (error) {
    if (!(error instanceof DomainException)) throw error;
    expect(error.code).toBe('VALIDATION_FAILED');
    return (error.errors ?? []).map((field) => field.field);
  }
}

describe('mso_mdoc credential configurations (OpenID4VCI 1.0 appendix A.2)', () => {
  it('keeps the doctype and applies the defaults: ES256, revocable, a year of validity', () => {
    const definition = definitionOf(mdl());
    expect(definition).toMatchObject({
      format: 'mso_mdoc',
      doctype: 'org.iso.18013.5.1.mDL',
      vct: null,
      credentialDefinition: null,
      selectivelyDisclosable: null,
      signingAlgorithm: 'ES256',
      cryptosuite: null,
      revocable: true,
      expiresInSeconds: mdocDefaultExpiresIn,
    });
    expect(definitionOf(mdl({ expiresInSeconds: 3600 })).expiresInSeconds).toBe(3600);
  });

  it('requires a doctype of reverse-domain characters', () => {
    expect(refused(mdl({ doctype: undefined }))).toEqual(['doctype']);
    expect(refused(mdl({ doctype: 'org iso' }))).toEqual(['doctype']);
  });

  it('refuses the fields mdocs do not have, each by name', () => {
    expect(
      refused(
        mdl({
          vct: 'https://x.example',
          credentialDefinition: { '@context': [], type: ['VerifiableCredential'] },
          cryptosuite: 'eddsa-rdfc-2022',
          signingAlgorithm: 'EdDSA',
          selectivelyDisclosable: [[ns, 'family_name']],
          claimsFromLogin: { family_name: 'family_name' },
        }),
      ).sort(),
    ).toEqual(
      [
        'claimsFromLogin',
        'credentialDefinition',
        'cryptosuite',
        'selectivelyDisclosable',
        'signingAlgorithm',
        'vct',
      ].sort(),
    );
    expect(refused(mdl({ signingAlgorithm: 'ES256' }))).toEqual([]);
  });

  it('wants claims as [namespace, element] and a doctype on mso_mdoc only', () => {
    const claims = [{ path: ['family_name'] }, { path: [ns, 'x', 'y'] }, { path: [ns, 0] }];
    expect(refused(mdl({ claims }))).toEqual(['claims.0.path', 'claims.1.path', 'claims.2.path']);
    expect(refused({ format: 'dc+sd-jwt', vct: 'x', doctype: 'org.iso.18013.5.1.mDL' })).toEqual([
      'doctype',
    ]);
  });

  it('is advertised with its doctype, cose_key binding, COSE ES256 (-7) and ES256 proofs', () => {
    const definition = definitionOf(mdl());
    const configuration = {
      ...definition,
      doctype: definition.doctype ?? null,
      keyAttestationsRequired: null,
      id: 'mDL',
      tenantId: 'acme',
      createdAt: '',
      updatedAt: '',
    } as CredentialConfigurationDto;
    const metadata = credentialIssuerMetadata(
      'https://agent.example/ctrl/oid4vci/acme',
      { id: 'acme', label: 'ACME', imageUrl: null },
      [configuration],
    );
    const supported = (metadata.credential_configurations_supported as Record<string, unknown>).mDL;
    expect(supported).toEqual({
      format: 'mso_mdoc',
      scope: 'mDL',
      doctype: 'org.iso.18013.5.1.mDL',
      cryptographic_binding_methods_supported: ['cose_key'],
      credential_signing_alg_values_supported: [-7],
      proof_types_supported: { jwt: { proof_signing_alg_values_supported: ['ES256'] } },
      credential_metadata: { display: [], claims: definition.claims },
    });
  });
});
