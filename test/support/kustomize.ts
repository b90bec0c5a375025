import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Deployment } from 'kubernetes-models/apps/v1';
import { Job } from 'kubernetes-models/batch/v1';
import { type IContainer, type IPodSpec } from 'kubernetes-models/v1';
import { parseAllDocuments } from 'yaml';

/**
 * A small, strict stand-in for `kustomize build` (no binary here): the kustomization fields and the
 * strategic-merge lists the manifests use, and an error for anything else rather than ignoring it.
 */

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

export interface Kustomization {
  namespace?: string;
  resources?: string[];
  patches?: { path: string }[];
  images?: { name: string; newName?: string; newTag?: string; digest?: string }[];
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function readYaml(file: string): unknown[] {
  return parseAllDocuments(readFileSync(file, 'utf8')).map((document) => {
    if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]?.message}`);
    const value: unknown = document.toJS();
    return value;
  });
}

export function readObjects(file: string): KubeObject[] {
  return readYaml(file).map((value) => {
    if (
      !isRecord(value) ||
      typeof value.apiVersion !== 'string' ||
      typeof value.kind !== 'string' ||
      !isRecord(value.metadata) ||
      typeof value.metadata.name !== 'string'
    ) {
      throw new Error(`${file}: not a Kubernetes object with apiVersion, kind and metadata.name`);
    }
    return value as KubeObject;
  });
}

/**
 * The subset of kustomize these manifests use: resources (files and directories), strategic-merge
 * patches by file, images and namespace. A kustomization field or a patch shape outside that subset
 * fails the test instead of being ignored, so that what is validated is what kustomize would build.
 */
export const renderedFields = new Set([
  'apiVersion',
  'kind',
  'namespace',
  'resources',
  'patches',
  'images',
]);

export function build(directory: string): KubeObject[] {
  const [kustomization] = readYaml(join(directory, 'kustomization.yaml')) as [Kustomization];
  const unsupported = Object.keys(kustomization).filter((field) => !renderedFields.has(field));
  if (unsupported.length > 0) {
    throw new Error(`${directory}: this test does not render ${unsupported.join(', ')}`);
  }
  const objects: KubeObject[] = [];
  for (const resource of kustomization.resources ?? []) {
    const path = resolve(directory, resource);
    objects.push(...(statSync(path).isDirectory() ? build(path) : readObjects(path)));
  }
  for (const patch of kustomization.patches ?? []) {
    if (Object.keys(patch).some((field) => field !== 'path')) {
      throw new Error(`${directory}: this test renders patches given by path only`);
    }
    for (const change of readObjects(resolve(directory, patch.path))) {
      const target = objects.find(
        (object) =>
          object.apiVersion === change.apiVersion &&
          object.kind === change.kind &&
          object.metadata.name === change.metadata.name,
      );
      if (target === undefined) {
        throw new Error(`${patch.path}: no ${change.kind} ${change.metadata.name} to patch`);
      }
      strategicMerge(target, change, `${change.kind}/${change.metadata.name}`);
    }
  }
  for (const image of kustomization.images ?? []) {
    for (const container of objects.flatMap(containersOf)) {
      const [name, tag] = splitImage(container.image ?? '');
      if (name !== image.name) continue;
      const newTag = image.newTag ?? tag;
      const reference =
        image.digest !== undefined ? `@${image.digest}` : newTag !== undefined ? `:${newTag}` : '';
      container.image = `${image.newName ?? name}${reference}`;
    }
  }
  if (kustomization.namespace !== undefined) {
    for (const object of objects) {
      if (object.kind !== 'Namespace') object.metadata.namespace = kustomization.namespace;
    }
  }
  return objects;
}

/** Lists that strategic merge patches merge by a key in the fields these overlays patch. */
export const listMergeKeys: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  env: 'name',
  volumes: 'name',
  volumeMounts: 'mountPath',
};

export function strategicMerge(
  target: Record<string, unknown>,
  patch: Record<string, unknown>,
  path: string,
): void {
  for (const [field, change] of Object.entries(patch)) {
    if (field.startsWith('$')) throw new Error(`${path}: this test does not render ${field}`);
    const current = target[field];
    if (change === null) delete target[field];
    else if (isRecord(change) && isRecord(current)) {
      strategicMerge(current, change, `${path}.${field}`);
    } else if (Array.isArray(change) && Array.isArray(current)) {
      const key = listMergeKeys[field];
      if (key === undefined) throw new Error(`${path}.${field}: a list this test cannot merge`);
      for (const item of change as unknown[]) {
        if (!isRecord(item)) throw new Error(`${path}.${field}: items must be objects`);
        const existing = current.find((entry) => isRecord(entry) && entry[key] === item[key]);
        if (isRecord(existing)) {
          strategicMerge(existing, item, `${path}.${field}[${String(item[key])}]`);
        } else current.push(item);
      }
    } else target[field] = change;
  }
}

/** `registry:5000/name:tag@digest` as [name, tag]. */
export function splitImage(image: string): [string, string | undefined] {
  const withoutDigest = image.split('@')[0] ?? '';
  const slash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.indexOf(':', slash + 1);
  return colon < 0
    ? [withoutDigest, undefined]
    : [withoutDigest.slice(0, colon), withoutDigest.slice(colon + 1)];
}

export function podSpecOf(object: unknown): IPodSpec | undefined {
  if (Deployment.is(object) || Job.is(object)) return object.spec?.template.spec;
  return undefined;
}

export function containersOf(object: unknown): IContainer[] {
  const spec = podSpecOf(object);
  return [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])];
}
