import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

// Kubernetes objects are checked structurally; a loose type keeps the assertions readable.
type K8s = Record<string, any>;

const DEPLOY = path.resolve(__dirname, '..');
const OVERLAYS = ['development', 'production'];
const IMAGE_REPO = 'ghcr.io/social-api';
const SECRET_NAME = 'social-api-secrets';
const PUBLISH_QUEUE = 'publisher.publish-jobs';
const SECRET_KEYS = [
  'MONGO_URL',
  'AMQP_URL',
  'REDIS_URL',
  'INTERNAL_JWT_PUBLIC_KEYS',
  'GATEWAY_JWT_PRIVATE_KEY',
  'POSTS_JWT_PRIVATE_KEY',
  'MEDIA_JWT_PRIVATE_KEY',
  'INSIGHTS_JWT_PRIVATE_KEY',
  'PUBLISHER_JWT_PRIVATE_KEY',
  'STORAGE_SIGNING_SECRET',
  'PROFILE_TOKEN_KEY',
  'WEBHOOKS_SECRET_KEY',
];

const KNOWN_KINDS: Record<string, string[]> = {
  v1: ['Namespace', 'Service', 'ConfigMap'],
  'apps/v1': ['Deployment'],
  'policy/v1': ['PodDisruptionBudget'],
  'autoscaling/v2': ['HorizontalPodAutoscaler'],
  'networking.k8s.io/v1': ['NetworkPolicy', 'Ingress'],
  'keda.sh/v1alpha1': ['ScaledObject', 'TriggerAuthentication'],
  'monitoring.coreos.com/v1': ['ServiceMonitor'],
};

function readYaml(file: string): K8s[] {
  const docs = parseAllDocuments(readFileSync(file, 'utf8'));
  for (const d of docs) if (d.errors.length > 0) throw new Error(`${file}: ${d.errors[0]!.message}`);
  return docs.map((d) => d.toJSON() as K8s | null).filter((d): d is K8s => d !== null);
}

interface Assembled {
  resources: K8s[];
  /** Every file a kustomization names (resources, components, patches), and the kustomizations. */
  files: string[];
  images: string[];
  /** Patch targets and replica names declared by the kustomizations, checked against the resources. */
  targets: { kind?: string; name: string; in: string }[];
}

/**
 * What kustomize would put together from a directory, without its transformations (no kubectl or
 * kustomize needed): resource files, sub-directories, components and generated ConfigMaps. Every
 * path a kustomization names must exist.
 */
function assemble(dir: string): Assembled {
  const kfile = path.join(dir, 'kustomization.yaml');
  expect({ kustomization: kfile, exists: existsSync(kfile) }).toEqual({ kustomization: kfile, exists: true });
  const k = readYaml(kfile)[0]!;
  const out: Assembled = { resources: [], files: [kfile], images: [], targets: [] };
  const merge = (a: Assembled) => {
    out.resources.push(...a.resources);
    out.files.push(...a.files);
    out.images.push(...a.images);
    out.targets.push(...a.targets);
  };
  for (const entry of [...(k['resources'] ?? []), ...(k['components'] ?? [])] as string[]) {
    const p = path.resolve(dir, entry);
    expect({ in: kfile, entry, exists: existsSync(p) }).toEqual({ in: kfile, entry, exists: true });
    if (statSync(p).isDirectory()) merge(assemble(p));
    else {
      out.files.push(p);
      out.resources.push(...readYaml(p));
    }
  }
  for (const patch of (k['patches'] ?? []) as K8s[]) {
    if (patch['path']) {
      const p = path.resolve(dir, patch['path']);
      expect({ in: kfile, patch: patch['path'], exists: existsSync(p) }).toEqual({ in: kfile, patch: patch['path'], exists: true });
      out.files.push(p);
    }
    if (patch['target']?.['name']) out.targets.push({ kind: patch['target']['kind'], name: patch['target']['name'], in: kfile });
  }
  for (const r of (k['replicas'] ?? []) as K8s[]) out.targets.push({ kind: 'Deployment', name: r['name'], in: kfile });
  for (const g of (k['configMapGenerator'] ?? []) as K8s[]) {
    if (g['behavior'] !== 'merge') out.resources.push({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: g['name'] } });
  }
  out.images.push(...((k['images'] ?? []) as K8s[]).map((i) => i['name'] as string));
  return out;
}

/** What `kubectl kustomize` renders, when kubectl is installed (it is not downloaded for the test). */
function render(dir: string): K8s[] | undefined {
  try {
    const yaml = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', timeout: 30000, stdio: ['ignore', 'pipe', 'pipe'] });
    return parseAllDocuments(yaml).map((d) => d.toJSON() as K8s);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

const ofKind = (docs: K8s[], kind: string) => docs.filter((d) => d['kind'] === kind);
const nameOf = (d: K8s) => d['metadata']['name'] as string;
/** A label selector (matchLabels or a Service's plain map) matches when all its pairs are in the labels. */
const selects = (selector: Record<string, string> | undefined, labels: Record<string, string>) =>
  selector !== undefined && Object.entries(selector).every(([k, v]) => labels[k] === v);
const podLabels = (d: K8s) => d['spec']['template']['metadata']['labels'] as Record<string, string>;
const containersOf = (d: K8s) => d['spec']['template']['spec']['containers'] as K8s[];
// Generated ConfigMaps get a hash suffix when rendered.
const baseConfigName = (name: string) => name.replace(/-[a-z0-9]{10}$/, '');

/** The checks every set of manifests must pass, assembled or rendered. */
function checkManifests(docs: K8s[]): void {
  const deployments = ofKind(docs, 'Deployment');
  const workloadLabels = deployments.map(podLabels);
  expect(deployments.length).toBeGreaterThanOrEqual(8);

  // Known kinds, each name once per kind.
  for (const d of docs) {
    expect({ kind: d['kind'], apiVersion: d['apiVersion'], known: KNOWN_KINDS[d['apiVersion']]?.includes(d['kind']) ?? false }).toEqual({
      kind: d['kind'],
      apiVersion: d['apiVersion'],
      known: true,
    });
  }
  const ids = docs.map((d) => `${d['kind']}/${nameOf(d)}`);
  expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);

  const scaled = new Set([
    ...ofKind(docs, 'HorizontalPodAutoscaler').map((h) => h['spec']['scaleTargetRef']['name'] as string),
    ...ofKind(docs, 'ScaledObject').map((s) => s['spec']['scaleTargetRef']['name'] as string),
  ]);

  for (const dep of deployments) {
    const name = nameOf(dep);
    const labels = podLabels(dep);
    const podSpec = dep['spec']['template']['spec'];
    // Selector and labels.
    expect({ name, selectorMatchesTemplate: selects(dep['spec']['selector']['matchLabels'], labels) }).toEqual({
      name,
      selectorMatchesTemplate: true,
    });
    expect(labels['app.kubernetes.io/name']).toBe(name);
    expect(labels['app.kubernetes.io/part-of']).toBe('social-api');
    const services = ofKind(docs, 'Service').filter((s) => selects(s['spec']['selector'], labels));
    expect({ name, services: services.length }).toEqual({ name, services: 1 });
    const portNames = containersOf(dep).flatMap((c) => (c['ports'] ?? []).map((p: K8s) => p['name']));
    for (const p of services[0]!['spec']['ports'] as K8s[]) expect(portNames).toContain(p['targetPort']);
    // An autoscaler owns the replica count; a fixed one would fight it on every apply.
    if (scaled.has(name)) expect({ name, replicas: dep['spec']['replicas'] }).toEqual({ name, replicas: undefined });
    // A PodDisruptionBudget per workload.
    expect({
      name,
      pdbs: ofKind(docs, 'PodDisruptionBudget').filter((p) => selects(p['spec']['selector']['matchLabels'], labels)).length,
    }).toEqual({
      name,
      pdbs: 1,
    });

    // Hardened pod.
    expect(podSpec['securityContext']).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } });
    expect(podSpec['automountServiceAccountToken']).toBe(false);
    const emptyDirs = new Set((podSpec['volumes'] ?? []).filter((v: K8s) => v['emptyDir']).map((v: K8s) => v['name']));

    for (const c of containersOf(dep)) {
      const where = `${name}/${c['name']}`;
      expect({ where, image: c['image'] }).toEqual({
        where,
        image: expect.stringMatching(new RegExp(`^${IMAGE_REPO}/${name}(:[\\w.-]+)?$`)),
      });
      // Probes: HTTP readiness and liveness; gRPC servers also the native gRPC probe on their gRPC port.
      expect({ where, readiness: c['readinessProbe']?.['httpGet']?.['path'] }).toEqual({ where, readiness: '/readyz' });
      expect({ where, liveness: c['livenessProbe']?.['httpGet']?.['path'] }).toEqual({ where, liveness: '/healthz' });
      const grpcPort = (c['ports'] ?? []).find((p: K8s) => p['name'] === 'grpc')?.['containerPort'];
      if (grpcPort !== undefined) {
        const grpcProbes = ['startupProbe', 'readinessProbe', 'livenessProbe'].filter((p) => c[p]?.['grpc']?.['port'] === grpcPort);
        expect({ where, grpcProbes: grpcProbes.length > 0 }).toEqual({ where, grpcProbes: true });
      }
      // Resources.
      for (const bound of ['requests', 'limits']) {
        expect({ where, bound, cpu: !!c['resources']?.[bound]?.['cpu'], memory: !!c['resources']?.[bound]?.['memory'] }).toEqual({
          where,
          bound,
          cpu: true,
          memory: true,
        });
      }
      // Hardened container, with a writable /tmp only.
      expect({ where, securityContext: c['securityContext'] }).toMatchObject({
        where,
        securityContext: {
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          runAsNonRoot: true,
          capabilities: { drop: ['ALL'] },
        },
      });
      const tmp = (c['volumeMounts'] ?? []).find((m: K8s) => m['mountPath'] === '/tmp');
      expect({ where, tmpIsEmptyDir: tmp !== undefined && emptyDirs.has(tmp['name']) }).toEqual({ where, tmpIsEmptyDir: true });
      // Config by reference; secrets only from the one Secret created out of band.
      for (const ref of (c['envFrom'] ?? []) as K8s[]) {
        const cm = ref['configMapRef']?.['name'];
        if (cm) expect(ofKind(docs, 'ConfigMap').map((m) => baseConfigName(nameOf(m)))).toContain(baseConfigName(cm));
        expect(ref['secretRef']?.['name'] ?? SECRET_NAME).toBe(SECRET_NAME);
      }
      for (const e of (c['env'] ?? []) as K8s[]) {
        if (e['valueFrom']?.['secretKeyRef']) expect(e['valueFrom']['secretKeyRef']['name']).toBe(SECRET_NAME);
        if (SECRET_KEYS.includes(e['name'])) {
          expect({ where, env: e['name'], from: e['valueFrom']?.['secretKeyRef']?.['key'] }).toEqual({
            where,
            env: e['name'],
            from: e['name'],
          });
        }
      }
    }
  }

  // No secret values committed: the Secret is created out of band, and no ConfigMap carries one.
  expect(ofKind(docs, 'Secret')).toEqual([]);
  for (const cm of ofKind(docs, 'ConfigMap')) expect(Object.keys(cm['data'] ?? {}).filter((k) => SECRET_KEYS.includes(k))).toEqual([]);

  // The gateway HPA.
  const hpas = ofKind(docs, 'HorizontalPodAutoscaler');
  expect(hpas.map((h) => h['spec']['scaleTargetRef'])).toEqual([{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'gateway' }]);
  expect(hpas[0]!['spec']['metrics'][0]).toMatchObject({ type: 'Resource', resource: { name: 'cpu' } });
  expect(hpas[0]!['spec']['minReplicas']).toBeLessThanOrEqual(hpas[0]!['spec']['maxReplicas']);

  // KEDA scales the publisher on the publish queue, counting unacknowledged messages too.
  const [scaledObject, ...more] = ofKind(docs, 'ScaledObject');
  expect(more).toEqual([]);
  expect(scaledObject!['spec']['scaleTargetRef']).toMatchObject({ kind: 'Deployment', name: 'publisher' });
  expect(deployments.map(nameOf)).toContain('publisher');
  const [trigger] = scaledObject!['spec']['triggers'] as K8s[];
  expect(trigger).toMatchObject({
    type: 'rabbitmq',
    metadata: { queueName: PUBLISH_QUEUE, mode: 'QueueLength', protocol: 'http' },
  });
  expect(trigger!['metadata']['excludeUnacknowledged'] ?? 'false').toBe('false');
  expect(trigger!['metadata']['host']).toBeUndefined();
  const auth = ofKind(docs, 'TriggerAuthentication').find((t) => nameOf(t) === trigger!['authenticationRef']['name']);
  expect(auth?.['spec']['secretTargetRef']).toEqual([expect.objectContaining({ parameter: 'host', name: SECRET_NAME })]);

  // Network policies: default deny, and every policy and peer names a workload that exists.
  const policies = ofKind(docs, 'NetworkPolicy');
  expect(
    policies.some(
      (p) =>
        Object.keys(p['spec']['podSelector']).length === 0 &&
        p['spec']['policyTypes'].length === 2 &&
        !p['spec']['ingress'] &&
        !p['spec']['egress'],
    ),
  ).toBe(true);
  for (const p of policies) {
    const selector = p['spec']['podSelector']['matchLabels'];
    if (selector === undefined) continue;
    expect({ policy: nameOf(p), selectsWorkload: workloadLabels.some((l) => selects(selector, l)) }).toEqual({
      policy: nameOf(p),
      selectsWorkload: true,
    });
    for (const rule of [...(p['spec']['ingress'] ?? []), ...(p['spec']['egress'] ?? [])] as K8s[]) {
      for (const peer of [...(rule['from'] ?? []), ...(rule['to'] ?? [])] as K8s[]) {
        if (!peer['podSelector'] || peer['namespaceSelector']) continue;
        const peers = deployments.filter((d) => selects(peer['podSelector']['matchLabels'], podLabels(d)));
        expect({ policy: nameOf(p), peer: peer['podSelector'], exists: peers.length > 0 }).toEqual({
          policy: nameOf(p),
          peer: peer['podSelector'],
          exists: true,
        });
        // Named ports must exist on the peer (egress) or on the policy's own pods (ingress).
        const owners = rule['to'] ? peers : deployments.filter((d) => selects(selector, podLabels(d)));
        for (const port of (rule['ports'] ?? []) as K8s[]) {
          if (typeof port['port'] !== 'string') continue;
          for (const owner of owners) {
            const names = containersOf(owner).flatMap((c) => (c['ports'] ?? []).map((cp: K8s) => cp['name']));
            expect({ policy: nameOf(p), workload: nameOf(owner), port: port['port'], has: names.includes(port['port']) }).toEqual({
              policy: nameOf(p),
              workload: nameOf(owner),
              port: port['port'],
              has: true,
            });
          }
        }
      }
    }
  }

  // Every Ingress backend is a Service that exists.
  for (const ing of ofKind(docs, 'Ingress')) {
    for (const rule of ing['spec']['rules'] as K8s[]) {
      for (const p of rule['http']['paths'] as K8s[])
        expect(ofKind(docs, 'Service').map(nameOf)).toContain(p['backend']['service']['name']);
    }
  }
}

describe('Kubernetes manifests (deploy/)', () => {
  const overlays = OVERLAYS.map((o) => ({ overlay: o, assembled: assemble(path.join(DEPLOY, 'overlays', o)) }));

  it.each(OVERLAYS)('the %s overlay, assembled from its kustomization files, passes every check', (overlay) => {
    const { assembled } = overlays.find((o) => o.overlay === overlay)!;

    checkManifests(assembled.resources);
  });

  it.each(OVERLAYS)('the %s overlay names images, patch targets and replicas that exist', (overlay) => {
    const { assembled } = overlays.find((o) => o.overlay === overlay)!;
    const used = ofKind(assembled.resources, 'Deployment').flatMap((d) => containersOf(d).map((c) => (c['image'] as string).split(':')[0]));

    expect([...new Set(assembled.images)].sort()).toEqual([...new Set(used)].sort());
    for (const t of assembled.targets) {
      // kustomize reads a target name as an anchored regular expression.
      const hits = assembled.resources.filter((r) => (!t.kind || r['kind'] === t.kind) && new RegExp(`^(?:${t.name})$`).test(nameOf(r)));
      expect({ in: path.relative(DEPLOY, t.in), target: t, hits: hits.length > 0 }).toEqual({
        in: path.relative(DEPLOY, t.in),
        target: t,
        hits: true,
      });
    }
  });

  it('has no manifest that no kustomization uses, except the marked secret example', () => {
    const used = new Set(overlays.flatMap((o) => o.assembled.files));
    for (const c of readdirSync(path.join(DEPLOY, 'components')))
      for (const f of assemble(path.join(DEPLOY, 'components', c)).files) used.add(f);
    const all = (dir: string): string[] =>
      readdirSync(dir).flatMap((f) => {
        const p = path.join(dir, f);
        return statSync(p).isDirectory() ? all(p) : /\.ya?ml$/.test(f) ? [p] : [];
      });

    const unused = all(DEPLOY)
      .filter((f) => !used.has(f))
      .map((f) => path.relative(DEPLOY, f));

    expect(unused).toEqual(['base/secret.example.yaml']);
    expect(readFileSync(path.join(DEPLOY, 'base/secret.example.yaml'), 'utf8')).toMatch(/^# EXAMPLE ONLY/);
  });

  it('the tracing component gives every process an OTLP endpoint and lets it reach the collector past the default deny', () => {
    const dir = path.join(DEPLOY, 'components', 'tracing');
    const k = readYaml(path.join(dir, 'kustomization.yaml'))[0]!;
    const generator = (k['configMapGenerator'] as K8s[]).find((g) => g['name'] === 'social-api-config')!;
    const settings = Object.fromEntries(
      (generator['literals'] as string[]).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
    );
    const endpoint = new URL(settings['OTEL_EXPORTER_OTLP_ENDPOINT']!);
    const policies = ofKind(assemble(dir).resources, 'NetworkPolicy');

    // Merged into the settings every Deployment reads, rather than a second ConfigMap to wire in.
    expect(generator['behavior']).toBe('merge');
    for (const { assembled } of overlays)
      for (const dep of ofKind(assembled.resources, 'Deployment'))
        expect({ dep: nameOf(dep), envFrom: containersOf(dep)[0]!['envFrom'] }).toEqual({
          dep: nameOf(dep),
          envFrom: expect.arrayContaining([{ configMapRef: { name: 'social-api-config' } }]),
        });
    // OTLP over HTTP (the only protocol our exporter speaks), on the port the policy opens, for every pod.
    expect(endpoint.protocol).toBe('http:');
    const open = policies.filter(
      (p) =>
        p['spec']['policyTypes'].includes('Egress') &&
        (p['spec']['egress'] as K8s[]).some(
          (rule) => rule['to'] === undefined && rule['ports'].some((port: K8s) => String(port['port']) === endpoint.port),
        ),
    );
    for (const dep of ofKind(overlays[0]!.assembled.resources, 'Deployment'))
      expect({ dep: nameOf(dep), allowed: open.some((p) => selects(p['spec']['podSelector']['matchLabels'], podLabels(dep))) }).toEqual({
        dep: nameOf(dep),
        allowed: true,
      });
  });

  describe('rendered by kubectl kustomize (skipped when kubectl is not installed)', () => {
    const rendered = Object.fromEntries(OVERLAYS.map((o) => [o, render(path.join(DEPLOY, 'overlays', o))]));
    const withKubectl = rendered['development'] ? it : it.skip;

    withKubectl.each(OVERLAYS)('the rendered %s overlay passes every check', (overlay) => {
      checkManifests(rendered[overlay]!);
    });

    withKubectl('development: one replica each, the sandbox with its admin API, images tagged dev', () => {
      const docs = rendered['development']!;
      for (const d of ofKind(docs, 'Deployment')) expect([undefined, 1]).toContain(d['spec']['replicas']);
      expect(ofKind(docs, 'HorizontalPodAutoscaler')[0]!['spec']).toMatchObject({ minReplicas: 1 });
      expect(ofKind(docs, 'ConfigMap')[0]!['data']).toMatchObject({ SANDBOX_ADMIN: 'true' });
      expect(ofKind(docs, 'Deployment').map(nameOf)).toContain('network-sandbox');
      for (const d of ofKind(docs, 'Deployment')) expect(containersOf(d)[0]!['image']).toMatch(/:dev$/);
    });

    withKubectl('production: several replicas, PDBs by minAvailable, HPA bounds, no sandbox admin', () => {
      const docs = rendered['production']!;
      const pdbOf = (name: string) => ofKind(docs, 'PodDisruptionBudget').find((p) => nameOf(p) === name)!;
      for (const d of ofKind(docs, 'Deployment')) {
        const replicas = d['spec']['replicas'];
        // minAvailable never equals the replica count, or no node could ever be drained.
        if (replicas !== undefined && replicas > 1) expect(pdbOf(nameOf(d))['spec']['minAvailable']).toBeLessThan(replicas);
      }
      expect(pdbOf('posts')['spec']).toEqual(expect.objectContaining({ minAvailable: 2 }));
      expect(ofKind(docs, 'HorizontalPodAutoscaler')[0]!['spec']).toMatchObject({ minReplicas: 3, maxReplicas: 20 });
      expect(pdbOf('gateway')['spec']['minAvailable']).toBeLessThan(3);
      expect(ofKind(docs, 'ScaledObject')[0]!['spec']['minReplicaCount']).toBeGreaterThan(pdbOf('publisher')['spec']['minAvailable']);
      expect(ofKind(docs, 'ConfigMap')[0]!['data']).toMatchObject({ SANDBOX_ADMIN: 'false', NODE_ENV: 'production' });
      expect(ofKind(docs, 'Namespace')[0]!['metadata']['labels']).toMatchObject({ 'pod-security.kubernetes.io/enforce': 'restricted' });
    });
  });
});
