/**
 * Type-checks keycloak/agent-cloud-realm.json against Keycloak's own RealmRepresentation (from
 * @keycloak/keycloak-admin-client): a misspelt or misplaced field anywhere in the file is a compile error
 * here, so `npm run typecheck` and test/realm-file.e2e-spec.ts fail on it.
 */
import type ComponentExportRepresentation from '@keycloak/keycloak-admin-client/lib/defs/componentExportRepresentation.js';
import type RealmRepresentation from '@keycloak/keycloak-admin-client/lib/defs/realmRepresentation.js';
import realm from './agent-cloud-realm.json' with { type: 'json' };

/**
 * The admin client types `components` as one component per provider type with single-valued config,
 * but Keycloak's import format (what `kc.sh export` writes and `--import-realm` reads) has a list of
 * components per provider type and multivalued config. Only that field is restated; the rest is Keycloak's.
 */
type ComponentInFile = Omit<ComponentExportRepresentation, 'config' | 'subComponents'> & {
  config?: Record<string, string[]>;
  subComponents?: Record<string, ComponentInFile[]>;
};
export type RealmFileRepresentation = Omit<RealmRepresentation, 'components'> & {
  components?: Record<string, ComponentInFile[]>;
};

/** Every key of Actual must exist in Shape, recursively: extra (misspelt) keys become `never`. */
type Exact<Actual, Shape> = Actual extends readonly (infer Item)[]
  ? Shape extends readonly (infer ShapeItem)[]
    ? readonly Exact<Item, ShapeItem>[]
    : never
  : Actual extends object
    ? {
        [Key in keyof Actual]: Key extends keyof Shape
          ? Exact<Actual[Key], NonNullable<Shape[Key]>>
          : never;
      }
    : Actual;

export const realmFile: RealmFileRepresentation = realm;
export const noUnknownFields: Exact<typeof realm, RealmFileRepresentation> = realm;
