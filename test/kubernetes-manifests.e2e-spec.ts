import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { Deployment } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { Ingress, NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import {
  ConfigMap,
  Namespace,
  Secret,
  Service,
  ServiceAccount,
  type IContainer,
  type IProbe,
} from 'kubernetes-models/v1';
import { loadSettings } from '../src/config/load-settings.js';
import { settingsCatalogue } from '../src/config/settings.js';
import { dataSourceOptions } from '../src/database/data-source.js';
import { startTestService, type TestService } from './support/test-service.js';
import {
  type KubeObject,
  type Kustomization,
  readYaml,
  readObjects,
  build,
  splitImage,
  containersOf,
} from './support/kustomize.js';

/**
 * The Kubernetes manifests in deploy/kubernetes: every object of the base and of each overlay is valid
 * against the Kubernetes schemas (kubernetes-models), and what the manifests say of the app (its port,
 * probes, variables, migration command, drain, connections) is checked against the app itself.
 */

const root = resolve(import.meta.dirname, '..');
const manifestsDirectory = join(root, 'deploy/kubernetes');

/** Variables the OpenTelemetry SDK reads itself (docs/operations.md, Traces), not the app's Settings. */
const sdkVariables = new Map<string, { secret: boolean }>([
  ['OTEL_EXPORTER_OTLP_ENDPOINT', { secret: false }],
  ['OTEL_SERVICE_NAME', { secret: false }],
]);

/** Every object kind the manifests may hold, with the model that validates it. */
const models: Record<string, new (data: object) => { validate(): void }> = {
  'v1/ConfigMap': ConfigMap,
  'v1/Namespace': Namespace,
  'v1/Secret': Secret,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'apps/v1/Deployment': Deployment,
  'batch/v1/Job': Job,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'networking.k8s.io/v1/Ingress': Ingress,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
};

/** The objects of one kind, typed by its model's guard. */
function ofKind<T>(objects: readonly unknown[], guard: (value: unknown) => value is T): T[] {
  return objects.filter(guard);
}

function only<T>(items: T[], what: string): T {
  if (items.length !== 1) throw new Error(`expected one ${what}, found ${items.length}`);
  return items[0];
}

/** The runtime stage of the Dockerfile: its ENV, WORKDIR, USER, COPY and CMD instructions. */
function runtimeStage(): { env: Record<string, string>; instructions: [string, string][] } {
  const text = readFileSync(join(root, 'Dockerfile'), 'utf8').replace(/\\\n/g, ' ');
  const lines = text.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
  const start = lines.findLastIndex((line) => line.startsWith('FROM '));
  const instructions = lines.slice(start).map((line): [string, string] => {
    const [keyword = '', ...rest] = line.trim().split(/\s+/);
    return [keyword, rest.join(' ')];
  });
  const env: Record<string, string> = {};
  for (const [keyword, rest] of instructions) {
    if (keyword !== 'ENV') continue;
    for (const [, name = '', value = ''] of rest.matchAll(/(\w+)=(\S+)/g)) env[name] = value;
  }
  return { env, instructions };
}

/** A constant of the app's source, read where it is declared: `const name = 8_000;`. */
function sourceConstant(file: string, name: string): number {
  const match = new RegExp(`const ${name} = ([\\d_]+);`).exec(
    readFileSync(join(root, file), 'utf8'),
  );
  if (match?.[1] === undefined) throw new Error(`${file} no longer declares ${name}`);
  return Number(match[1].replaceAll('_', ''));
}

const secretExample = only(
  ofKind(readObjects(join(manifestsDirectory, 'base/secret.example.yaml')), Secret.is),
  'Secret in secret.example.yaml',
);
const exampleSecretKeys = Object.keys(secretExample.stringData ?? {});

function settingOf(name: string): { secret: boolean } | undefined {
  const declared = settingsCatalogue().get(name);
  if (declared !== undefined) return { secret: declared.secret === true };
  return sdkVariables.get(name);
}

/** Stand-ins for the Secret's values, in the formats the app accepts, to check the configuration. */
const secretStandIns: Record<string, string> = {
  DATABASE_URL: 'postgres://agent:stand-in@agent-db-rw:5432/agent',
  AGENT_MASTER_KEY: randomBytes(32).toString('base64'),
};

interface PodEnvironment {
  /** Each variable with where it comes from. */
  sources: Map<string, 'configMap' | 'value' | 'secret' | 'optionalSecret'>;
  /** The environment the process would see, secrets replaced by stand-ins, optional ones left out. */
  env: Record<string, string>;
  problems: string[];
}

function environmentOf(container: IContainer, objects: KubeObject[]): PodEnvironment {
  const sources: PodEnvironment['sources'] = new Map();
  const env: Record<string, string> = { ...runtimeStage().env };
  const problems: string[] = [];
  for (const from of container.envFrom ?? []) {
    if (from.prefix !== undefined || from.configMapRef === undefined) {
      problems.push(`${container.name}: envFrom takes ConfigMaps without a prefix only`);
      continue;
    }
    const name = from.configMapRef.name;
    const configMap = ofKind(objects, ConfigMap.is).find(
      (object) => object.metadata?.name === name,
    );
    if (configMap === undefined) problems.push(`${container.name}: no ConfigMap ${name}`);
    for (const [key, value] of Object.entries(configMap?.data ?? {})) {
      sources.set(key, 'configMap');
      env[key] = value;
    }
  }
  for (const variable of container.env ?? []) {
    const reference = variable.valueFrom?.secretKeyRef;
    if (variable.value !== undefined) {
      sources.set(variable.name, 'value');
      env[variable.name] = variable.value;
    } else if (reference !== undefined) {
      sources.set(variable.name, reference.optional === true ? 'optionalSecret' : 'secret');
      if (reference.name !== secretExample.metadata?.name || reference.key !== variable.name) {
        problems.push(`${variable.name}: from Secret ${reference.name} key ${reference.key}`);
      }
      if (!exampleSecretKeys.includes(reference.key)) {
        problems.push(`${variable.name}: secret.example.yaml has no key ${reference.key}`);
      }
      if (reference.optional !== true) {
        const standIn = secretStandIns[variable.name];
        if (standIn === undefined)
          problems.push(`${variable.name}: required secret without stand-in`);
        else env[variable.name] = standIn;
      }
    } else problems.push(`${variable.name}: neither a value nor a Secret key`);
  }
  return { sources, env, problems };
}

function renderings(): [string, KubeObject[]][] {
  const overlays = readdirSync(join(manifestsDirectory, 'overlays')).sort();
  return [
    ['base', build(join(manifestsDirectory, 'base'))],
    ...overlays.map((overlay): [string, KubeObject[]] => [
      `overlays/${overlay}`,
      build(join(manifestsDirectory, 'overlays', overlay)),
    ]),
  ];
}

describe.each(renderings())('the Kubernetes manifests: %s', (name, objects) => {
  const deployment = only(ofKind(objects, Deployment.is), 'Deployment');
  const job = only(ofKind(objects, Job.is), 'Job');
  const service = only(ofKind(objects, Service.is), 'Service');
  const autoscaler = only(ofKind(objects, HorizontalPodAutoscaler.is), 'HorizontalPodAutoscaler');
  const budget = only(ofKind(objects, PodDisruptionBudget.is), 'PodDisruptionBudget');
  const serviceAccount = only(ofKind(objects, ServiceAccount.is), 'ServiceAccount');
  const podSpec = deployment.spec?.template.spec;
  const app = only(podSpec?.containers ?? [], 'container in the Deployment');
  const migrate = only(job.spec?.template.spec?.containers ?? [], 'container in the Job');
  const podLabels = deployment.spec?.template.metadata?.labels ?? {};
  const jobLabels = job.spec?.template.metadata?.labels ?? {};
  const selects = (selector: Record<string, string> | undefined, labels: Record<string, string>) =>
    selector !== undefined &&
    Object.keys(selector).length > 0 &&
    Object.entries(selector).every(([key, value]) => labels[key] === value);

  it('holds only objects that are valid against the Kubernetes schemas', () => {
    const problems: string[] = [];
    for (const object of objects) {
      const Model = models[`${object.apiVersion}/${object.kind}`];
      if (Model === undefined) {
        problems.push(`${object.kind} ${object.metadata.name}: no schema for ${object.apiVersion}`);
        continue;
      }
      try {
        new Model(object).validate();
      } catch (error) {
        problems.push(`${object.kind} ${object.metadata.name}: ${(error as Error).message}`);
      }
    }
    expect(problems).toEqual([]);
    // Secrets are created by hand (docs/kubernetes.md, Secrets), never built from the repository.
    expect(ofKind(objects, Secret.is)).toEqual([]);
  });

  it.each([
    ['the app', app],
    ['the migration Job', migrate],
  ])('gives %s only variables the app reads, and its secrets from the Secret', (_, container) => {
    const { sources, problems } = environmentOf(container, objects);
    expect(problems).toEqual([]);
    const unknown = [...sources.keys()].filter((variable) => settingOf(variable) === undefined);
    expect(unknown).toEqual([]);
    const secretsInTheOpen = [...sources].filter(
      ([variable, source]) =>
        settingOf(variable)?.secret === true && source !== 'secret' && source !== 'optionalSecret',
    );
    expect(secretsInTheOpen).toEqual([]);
  });

  it.each([
    ['the app', app],
    ['the migration Job', migrate],
  ])('configures %s so that it starts, listening on every interface', (_, container) => {
    const config = loadSettings(environmentOf(container, objects).env);
    expect(config.NODE_ENV).toBe('production');
    // Local mode would listen on 127.0.0.1 only, out of the kubelet's and the Service's reach.
    expect(config.listenHost).toBeUndefined();
    expect(config.authIssuerEmbedded).toBe(false);
  });

  it('mounts the certificate authority’s optional Secret read-only where the ConfigMap’s commented paths point, and configures none', () => {
    // The operator uncomments the two paths once the Secret exists (docs/kubernetes.md, Secrets).
    const commented = [
      ...readFileSync(join(manifestsDirectory, 'base/configmap.yaml'), 'utf8').matchAll(
        /^ {2}# (CERTIFICATE_AUTHORITY_(?:CERT|KEY)_FILE): (\S+)$/gm,
      ),
    ].map((match) => [match[1], match[2]]);
    expect(commented.map(([variable]) => variable)).toEqual([
      'CERTIFICATE_AUTHORITY_CERT_FILE',
      'CERTIFICATE_AUTHORITY_KEY_FILE',
    ]);
    for (const [, path] of commented) {
      const mount = app.volumeMounts?.find((candidate) =>
        path.startsWith(`${candidate.mountPath}/`),
      );
      expect(mount?.readOnly).toBe(true);
      const volume = podSpec?.volumes?.find((candidate) => candidate.name === mount?.name);
      expect(volume?.secret).toMatchObject({ secretName: 'agent-service-ca', optional: true });
      expect(volume?.secret?.defaultMode).toBe(0o440);
      expect(volume?.secret?.items).toBeUndefined();
    }
    // None by default: the service starts without an authority (docs/certificates.md).
    const { env } = environmentOf(app, objects);
    expect(env).not.toHaveProperty('CERTIFICATE_AUTHORITY_CERT_FILE');
    expect(env).not.toHaveProperty('CERTIFICATE_AUTHORITY_KEY_FILE');
  });

  it('probes the health routes on the port the app listens on', () => {
    const config = loadSettings(environmentOf(app, objects).env);
    const http = app.ports?.find((port) => port.name === 'http');
    expect(http?.containerPort).toBe(config.PORT);
    const probed = (probe: IProbe | undefined) => [
      probe?.httpGet?.path,
      probe?.httpGet?.port === 'http' ? config.PORT : probe?.httpGet?.port,
      probe?.httpGet?.scheme ?? 'HTTP',
    ];
    expect(probed(app.readinessProbe)).toEqual(['/ctrl/health/ready', config.PORT, 'HTTP']);
    expect(probed(app.livenessProbe)).toEqual(['/ctrl/health/live', config.PORT, 'HTTP']);
    // The app listens only after its start-up migrations: liveness must not count that time.
    expect(probed(app.startupProbe)).toEqual(['/ctrl/health/live', config.PORT, 'HTTP']);
  });

  it('names the ports the Service targets, with metrics on 9464 where METRICS_PORT says', () => {
    const containerPorts = new Map((app.ports ?? []).map((port) => [port.name, port]));
    for (const port of service.spec?.ports ?? []) {
      expect([port.name, port.targetPort]).toEqual([port.name, port.name]);
      expect(containerPorts.get(port.name)?.protocol ?? 'TCP').toBe(port.protocol ?? 'TCP');
    }
    // Where the app's metrics server listens, as its configuration resolves METRICS_PORT.
    const { METRICS_PORT } = loadSettings(environmentOf(app, objects).env);
    expect(containerPorts.get('metrics')?.containerPort).toBe(9464);
    expect(METRICS_PORT).toBe(9464);
    expect(service.spec?.ports?.find((port) => port.name === 'metrics')?.port).toBe(9464);
    expect(service.spec?.ports?.map((port) => port.name).sort()).toEqual(['http', 'metrics']);
    // Only the Ingress is public; a LoadBalancer or NodePort would publish the metrics port.
    expect(service.spec?.type ?? 'ClusterIP').toBe('ClusterIP');
    expect(selects(service.spec?.selector, podLabels)).toBe(true);
    expect(selects(service.spec?.selector, jobLabels)).toBe(false);
  });

  it('routes /ctrl and the OpenID4VCI discovery prefixes on every Ingress (the overlays), nothing else', () => {
    const ingresses = ofKind(objects, Ingress.is);
    for (const ingress of ingresses) {
      const paths = (ingress.spec?.rules ?? []).flatMap((rule) =>
        (rule.http?.paths ?? []).map((path) => `${path.pathType} ${path.path}`),
      );
      expect(paths.sort()).toEqual(
        [
          'Prefix /ctrl',
          'Prefix /.well-known/openid-credential-issuer',
          'Prefix /.well-known/oauth-authorization-server',
          'Prefix /.well-known/jwt-vc-issuer',
        ].sort(),
      );
    }
  });

  it('routes no Ingress to the metrics port', () => {
    const routed = ofKind(objects, Ingress.is).flatMap((ingress) => [
      ...(ingress.spec?.defaultBackend ? [ingress.spec.defaultBackend] : []),
      ...(ingress.spec?.rules ?? []).flatMap((rule) =>
        (rule.http?.paths ?? []).map((path) => path.backend),
      ),
    ]);
    for (const backend of routed) {
      const target = ofKind(objects, Service.is).find(
        (candidate) => candidate.metadata?.name === backend.service?.name,
      );
      const port = target?.spec?.ports?.find(
        (candidate) =>
          candidate.name === backend.service?.port?.name ||
          candidate.port === backend.service?.port?.number,
      );
      expect(port?.name).toBe('http');
    }
  });

  it.each([
    ['the app', () => podSpec],
    ['the migration Job', () => job.spec?.template.spec],
  ])('runs %s as non-root, read-only, with nothing to escalate', (_, specOf) => {
    const spec = specOf();
    const problems: string[] = [];
    const pod = spec?.securityContext;
    if (pod?.runAsNonRoot !== true) problems.push('runAsNonRoot');
    // The image's `node` user, which is 1000 in the official Node.js images.
    if (pod?.runAsUser !== 1000) problems.push('runAsUser');
    if (pod?.seccompProfile?.type !== 'RuntimeDefault') problems.push('seccompProfile');
    if (spec?.automountServiceAccountToken !== false) problems.push('automountServiceAccountToken');
    if (spec?.serviceAccountName !== serviceAccount.metadata?.name) problems.push('serviceAccount');
    if (spec?.enableServiceLinks !== false) problems.push('enableServiceLinks');
    if (spec?.hostNetwork === true || spec?.hostPID === true || spec?.hostIPC === true) {
      problems.push('host namespaces');
    }
    const emptyDirs = new Set(
      (spec?.volumes ?? []).filter((volume) => volume.emptyDir).map((volume) => volume.name),
    );
    for (const container of [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])]) {
      const context = container.securityContext;
      if (context?.allowPrivilegeEscalation !== false) problems.push('allowPrivilegeEscalation');
      if (context?.readOnlyRootFilesystem !== true) problems.push('readOnlyRootFilesystem');
      if (context?.privileged === true) problems.push('privileged');
      if (!(context?.capabilities?.drop ?? []).includes('ALL')) problems.push('drop ALL');
      if ((context?.capabilities?.add ?? []).length > 0) problems.push('capabilities added');
      const tmp = container.volumeMounts?.find((mount) => mount.mountPath === '/tmp');
      if (tmp === undefined || !emptyDirs.has(tmp.name)) problems.push('/tmp from an emptyDir');
      for (const bound of ['requests', 'limits'] as const) {
        for (const resource of ['cpu', 'memory']) {
          if (container.resources?.[bound]?.[resource] === undefined) {
            problems.push(`${bound}.${resource}`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
    expect(serviceAccount.automountServiceAccountToken).toBe(false);
    expect(runtimeStage().instructions).toContainEqual(['USER', 'node']);
  });

  it("waits for the app's drain and its webhook deliveries before the kill", () => {
    const preStopSeconds = app.lifecycle?.preStop?.sleep?.seconds ?? 0;
    // Endpoint removal reaches the Ingress and kube-proxy while the instance still serves.
    expect(preStopSeconds).toBeGreaterThanOrEqual(3);
    const drainSeconds = sourceConstant('src/bootstrap/drain.ts', 'shutdownGraceMs') / 1000;
    const deliverySeconds =
      sourceConstant('src/webhooks/webhook-dispatcher.ts', 'requestTimeoutMs') / 1000;
    expect(podSpec?.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(
      preStopSeconds + drainSeconds + deliverySeconds,
    );
  });

  it('keeps two instances at least, and the budget and the autoscaler find them', () => {
    const replicas = deployment.spec?.replicas ?? 1;
    const spec = autoscaler.spec;
    expect(replicas).toBeGreaterThanOrEqual(2);
    expect(spec?.scaleTargetRef).toEqual({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      name: deployment.metadata?.name,
    });
    expect(spec?.minReplicas).toBeGreaterThanOrEqual(2);
    expect(replicas).toBeGreaterThanOrEqual(spec?.minReplicas ?? 1);
    expect(replicas).toBeLessThanOrEqual(spec?.maxReplicas ?? 0);
    expect(spec?.metrics).toContainEqual(
      expect.objectContaining({
        type: 'Resource',
        resource: expect.objectContaining({
          name: 'cpu',
          target: expect.objectContaining({ type: 'Utilization' }),
        }),
      }),
    );
    expect(selects(deployment.spec?.selector.matchLabels, podLabels)).toBe(true);
    expect(selects(budget.spec?.selector?.matchLabels, podLabels)).toBe(true);
    expect(selects(budget.spec?.selector?.matchLabels, jobLabels)).toBe(false);
    // A drain must be able to evict one instance when the autoscaler is at its minimum.
    const allowed =
      budget.spec?.maxUnavailable ?? (spec?.minReplicas ?? 0) - Number(budget.spec?.minAvailable);
    expect(Number(allowed)).toBeGreaterThanOrEqual(1);
  });

  it("keeps every instance's connections, the Job's and headroom within max_connections 100", () => {
    // docs/kubernetes.md, Connection budget: the default max_connections less 3 reserved.
    const pool = Number((dataSourceOptions('postgres://x@db/x').extra as { max: number }).max);
    const surge = Number(deployment.spec?.strategy?.rollingUpdate?.maxSurge ?? 0);
    const migrationConnections = 2;
    const headroom = 10;
    const peak = ((autoscaler.spec?.maxReplicas ?? 0) + surge) * pool;
    expect(peak + migrationConnections + headroom).toBeLessThanOrEqual(100 - 3);
  });

  it("migrates with the app's image and the package's migration command", () => {
    const scripts = (
      JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
      }
    ).scripts;
    const [, script] = /node (\S+) run$/.exec(scripts['migration:run'] ?? '') ?? [];
    expect(migrate.command).toEqual(['node', script, 'run']);
    expect(migrate.args).toBeUndefined();
    // The image holds the compiled dist/ in its working directory (npm test builds it here too).
    const { instructions } = runtimeStage();
    expect(instructions).toContainEqual(['WORKDIR', '/app']);
    expect(instructions).toContainEqual(['COPY', '--from=build /app/dist ./dist']);
    expect(existsSync(join(root, script ?? 'missing'))).toBe(true);
    expect([migrate.workingDir, app.workingDir, app.command]).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(migrate.image).toBe(app.image);
    expect(['Never', 'OnFailure']).toContain(job.spec?.template.spec?.restartPolicy);
  });

  if (name !== 'base') {
    it('runs a released image in its own namespace under the restricted Pod Security Standard', () => {
      const [, tag] = splitImage(app.image ?? '');
      expect(app.image?.includes('@sha256:') || (tag !== undefined && tag !== 'latest')).toBe(true);
      const namespace = only(ofKind(objects, Namespace.is), 'Namespace');
      expect(namespace.metadata?.labels?.['pod-security.kubernetes.io/enforce']).toBe('restricted');
      const namespaced = objects.filter((object) => object.kind !== 'Namespace');
      expect(new Set(namespaced.map((object) => object.metadata.namespace))).toEqual(
        new Set([namespace.metadata?.name]),
      );
    });
  }
});

describe('the Kubernetes manifests in the repository', () => {
  const files = (directory: string): string[] =>
    readdirSync(directory, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? files(join(directory, entry.name)) : [join(directory, entry.name)],
    );

  it('commit no value that looks like a real key or password', () => {
    const suspicious: string[] = [];
    for (const file of files(manifestsDirectory)) {
      const text = readFileSync(file, 'utf8');
      const at = relative(root, file);
      // Base64 of 32 bytes or more (a master key), or any long run of base64 characters.
      for (const [match] of text.matchAll(/[A-Za-z0-9+/]{40,}={0,2}/g)) {
        suspicious.push(`${at}: ${match}`);
      }
      // Passwords in connection URLs must be placeholders.
      for (const [, password = ''] of text.matchAll(/\/\/[^\s:/@]*:([^\s@]+)@/g)) {
        if (!/^(REPLACE_[A-Z0-9_]+|<[a-z-]+>)$/.test(password)) {
          suspicious.push(`${at}: ${password}`);
        }
      }
    }
    expect(suspicious).toEqual([]);
    for (const [key, value] of Object.entries(secretExample.stringData ?? {})) {
      expect([key, value.includes('REPLACE_')]).toEqual([key, true]);
    }
    expect(secretExample.data).toBeUndefined();
  });

  it('keep the Secret example out of every kustomization', () => {
    const listed = files(manifestsDirectory)
      .filter((file) => file.endsWith('kustomization.yaml'))
      .flatMap((file) => (readYaml(file)[0] as Kustomization).resources ?? []);
    expect(listed.filter((resource) => resource.includes('secret'))).toEqual([]);
  });
});

describe('the probe paths of the manifests', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => {
    await service.close();
  });

  it('answer 200 without a token on the running app', async () => {
    const [, objects] = renderings()[0];
    const app = only(containersOf(only(ofKind(objects, Deployment.is), 'Deployment')), 'container');
    const paths = [app.startupProbe, app.livenessProbe, app.readinessProbe].map(
      (probe) => probe?.httpGet?.path ?? 'missing',
    );
    for (const path of new Set(paths)) {
      const response = await fetch(`${service.url}${path}`);
      expect([path, response.status]).toEqual([path, 200]);
    }
  });
});
