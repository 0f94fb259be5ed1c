/**
 * The Kubernetes manifests parse and agree with the code: the container port is the
 * schema's MCP_HTTP_PORT, the probes hit /readyz and /healthz, every env name and ConfigMap
 * key is a real setting whose value parses, the grace period outlasts the drain, the
 * filesystem root is writable under a read-only root filesystem, the Ingress routes
 * MCP_HTTP_PATH, and nothing configures session affinity.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { Metric } from '../../src/telemetry/semconv.ts';
import { REPO_ROOT } from '../helpers/spawn-server.ts';
import { imageEnv, imageFilesystemRoot, readDockerfile } from './dockerfile.ts';
import { knownSettings, unknownNames } from './known-settings.ts';

// biome-ignore lint/suspicious/noExplicitAny: manifests are free-form YAML, checked field by field below.
type Manifest = Record<string, any>;

const DIR = path.join(REPO_ROOT, 'k8s');
const files = readdirSync(DIR).filter((f) => f.endsWith('.yaml'));
/** Every manifest of every file, the examples (`*.example.yaml`, not applied) included. */
const everything: (Manifest & { file: string })[] = [];
for (const file of files) {
  for (const doc of parseAllDocuments(readFileSync(path.join(DIR, file), 'utf8'))) {
    assert.deepEqual(doc.errors, [], `${file} is valid YAML`);
    const value = doc.toJS() as Manifest | null;
    if (value) everything.push({ ...value, file });
  }
}
const isExample = (file: string) => file.endsWith('.example.yaml');
/** What `kubectl apply -k k8s/` applies, plus the example Secret it expects to exist. */
const manifests = everything.filter((m) => !isExample(m.file) || m.file === 'secret.example.yaml');

function example(file: string): Manifest {
  const found = everything.filter((m) => m.file === file);
  assert.equal(found.length, 1, `one manifest in ${file}`);
  return found[0]!;
}

function one(kind: string, name?: string): Manifest {
  const found = manifests.filter((m) => m.kind === kind && (name === undefined || m.metadata?.name === name));
  assert.equal(found.length, 1, `exactly one ${kind}${name ? ` ${name}` : ''}`);
  return found[0]!;
}

const deployment = one('Deployment', 'mcp-toolkit');
const pod = deployment.spec.template.spec;
const container = pod.containers.find((c: Manifest) => c.name === 'mcp-toolkit') as Manifest;
const configMap = one('ConfigMap');
const secret = one('Secret');
const service = one('Service', 'mcp-toolkit');
const ingress = one('Ingress');
const config: Record<string, string> = configMap.data;
const dockerfile = readDockerfile();

/** What the server's process sees: the image's ENV, then the ConfigMap, then the Secret. */
const effectiveEnv: Record<string, string> = { ...imageEnv(dockerfile), ...config, ...secret.stringData };

function labelsMatch(selector: Record<string, string>, labels: Record<string, string>): boolean {
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

describe('k8s manifests', () => {
  test('every file parses; kustomization.yaml lists every manifest but the example Secret', () => {
    assert.ok(manifests.length >= 9, `${manifests.length} manifests`);
    for (const m of manifests) {
      assert.ok(m.apiVersion && m.kind, `${m.file}: apiVersion and kind`);
      if (m.kind !== 'Kustomization') assert.ok(m.metadata?.name, `${m.file}: metadata.name`);
    }
    const kustomization = one('Kustomization');
    const expected = files.filter((f) => f !== 'kustomization.yaml' && !isExample(f));
    assert.deepEqual([...kustomization.resources].sort(), expected.sort());
    assert.equal(secret.file, 'secret.example.yaml');
  });

  test('the container port is the default MCP_HTTP_PORT; probes use /readyz and /healthz on it', async () => {
    const known = await knownSettings();
    const port = Number(config.MCP_HTTP_PORT ?? known.defaults.MCP_HTTP_PORT);
    const http = container.ports.find((p: Manifest) => p.name === 'http');
    assert.equal(http?.containerPort, port);
    const probePort = (probe: Manifest) => probe.httpGet.port === 'http' || probe.httpGet.port === port;
    assert.equal(container.readinessProbe.httpGet.path, '/readyz');
    assert.equal(container.livenessProbe.httpGet.path, '/healthz');
    for (const probe of [container.readinessProbe, container.livenessProbe, container.startupProbe]) {
      assert.ok(probe && probePort(probe), 'probe on the server port');
    }
  });

  test('every env name and ConfigMap key is a real setting, and the values parse', async () => {
    const known = await knownSettings();
    const envNames = (container.env as Manifest[]).map((e) => e.name as string);
    assert.deepEqual(unknownNames([...envNames, ...Object.keys(config)], known), []);
    assert.deepEqual(unknownNames(Object.keys(secret.stringData), known), []);
    known.parse(effectiveEnv);
    const fromConfigMap = (container.envFrom as Manifest[]).map((e) => e.configMapRef?.name);
    assert.deepEqual(fromConfigMap, [configMap.metadata.name]);
  });

  test('secrets come from the Secret by their own names: API keys, state secret, Redis URL and password', () => {
    const refs = (container.env as Manifest[])
      .filter((e) => e.valueFrom?.secretKeyRef)
      .map((e) => ({ name: e.name as string, ref: e.valueFrom.secretKeyRef as Manifest }));
    assert.deepEqual(refs.map((r) => r.name).sort(), [
      'MCP_API_KEYS',
      'MCP_REDIS_PASSWORD',
      'MCP_REDIS_URL',
      'MCP_STATE_SECRET',
    ]);
    for (const { name, ref } of refs) {
      assert.equal(ref.name, secret.metadata.name);
      assert.equal(ref.key, name);
      assert.ok(name in secret.stringData, `${name} in secret.example.yaml`);
    }
    for (const secretName of ['MCP_API_KEYS', 'MCP_STATE_SECRET', 'MCP_REDIS_URL', 'MCP_REDIS_PASSWORD']) {
      assert.ok(!(secretName in config), `${secretName} is not in the ConfigMap`);
    }
  });

  test('terminationGracePeriodSeconds outlasts a preStop sleep, MCP_SHUTDOWN_DELAY_MS and MCP_SHUTDOWN_TIMEOUT_MS', async () => {
    const known = await knownSettings();
    const shutdownMs = Number(config.MCP_SHUTDOWN_TIMEOUT_MS ?? known.defaults.MCP_SHUTDOWN_TIMEOUT_MS);
    const delayMs = Number(config.MCP_SHUTDOWN_DELAY_MS ?? known.defaults.MCP_SHUTDOWN_DELAY_MS);
    const command = (container.lifecycle?.preStop?.exec?.command ?? []) as string[];
    const preStopMs = command[0] === 'sleep' ? Number(command[1]) * 1000 : 0;
    assert.ok(pod.terminationGracePeriodSeconds * 1000 > shutdownMs + delayMs + preStopMs);
  });

  test('the drain is visible to the readiness probe: /readyz fails before the server stops accepting', () => {
    const probe = container.readinessProbe;
    const noticedMs = probe.periodSeconds * probe.failureThreshold * 1000;
    assert.ok(Number(config.MCP_SHUTDOWN_DELAY_MS) >= noticedMs, 'the delay covers the probe failing');
  });

  test('non-root, read-only root filesystem, the filesystem root on a writable volume, resources set', () => {
    assert.equal(pod.securityContext.runAsNonRoot, true);
    const imageUser = dockerfile.stages.at(-1)!.instructions.findLast((i) => i.keyword === 'USER')!.args;
    assert.equal(String(pod.securityContext.runAsUser), imageUser.split(':')[0], "the image's user");
    assert.equal(container.securityContext.readOnlyRootFilesystem, true);
    assert.equal(container.securityContext.allowPrivilegeEscalation, false);
    const root = effectiveEnv.MCP_FILESYSTEM_ROOT ?? imageFilesystemRoot(dockerfile);
    const mount = (container.volumeMounts as Manifest[]).find((m) => m.mountPath === root);
    assert.ok(mount && !mount.readOnly, `${root} is a writable mount`);
    const volume = (pod.volumes as Manifest[]).find((v) => v.name === mount.name);
    assert.ok(volume?.emptyDir || volume?.persistentVolumeClaim, 'an emptyDir or a PVC');
    for (const kind of ['requests', 'limits']) {
      assert.ok(container.resources[kind].cpu && container.resources[kind].memory, `${kind}: cpu and memory`);
    }
  });

  test('the Service has no session affinity and reaches the pods on the named port', () => {
    assert.ok(
      service.spec.sessionAffinity === undefined || service.spec.sessionAffinity === 'None',
      'no sessionAffinity',
    );
    assert.ok(labelsMatch(service.spec.selector, deployment.spec.template.metadata.labels));
    assert.ok(container.ports.some((p: Manifest) => p.name === service.spec.ports[0].targetPort));
  });

  test('the Ingress routes MCP_HTTP_PATH to the Service, for the allowed host, with no affinity', async () => {
    const known = await knownSettings();
    for (const key of Object.keys(ingress.metadata.annotations ?? {})) {
      assert.doesNotMatch(key, /affinity|sticky|session-cookie|hash-by/, key);
    }
    const rule = ingress.spec.rules[0];
    const mcpPath = config.MCP_HTTP_PATH ?? known.defaults.MCP_HTTP_PATH;
    const route = (rule.http.paths as Manifest[]).find((p) => p.path === mcpPath);
    assert.ok(route, `a path for ${mcpPath}`);
    assert.equal(route.backend.service.name, service.metadata.name);
    const port = route.backend.service.port;
    assert.ok(service.spec.ports.some((p: Manifest) => p.name === port.name || p.port === port.number));
    assert.ok(config.MCP_ALLOWED_HOSTS?.split(',').includes(rule.host), 'MCP_ALLOWED_HOSTS admits the host');
    assert.equal(new URL(config.MCP_PUBLIC_URL!).host, rule.host, 'MCP_PUBLIC_URL is the Ingress host');
  });

  test('the Ingress waits longer than a tool call and admits the largest body the server accepts', async () => {
    const known = await knownSettings();
    const annotations = ingress.metadata.annotations as Record<string, string>;
    const toolMs = Number(config.MCP_TOOL_TIMEOUT_MS ?? known.defaults.MCP_TOOL_TIMEOUT_MS);
    assert.ok(Number(annotations['nginx.ingress.kubernetes.io/proxy-read-timeout']) * 1000 > toolMs);
    assert.equal(annotations['nginx.ingress.kubernetes.io/proxy-buffering'], 'off', 'SSE is not buffered');
    const size = /^(\d+)([km]?)$/i.exec(annotations['nginx.ingress.kubernetes.io/proxy-body-size'] ?? '');
    assert.ok(size, 'proxy-body-size is set');
    const bytes = Number(size[1]) * ({ '': 1, k: 1024, m: 1024 * 1024 }[size[2]!.toLowerCase()] ?? 1);
    const maxBody = Number(config.MCP_MAX_BODY_BYTES ?? known.defaults.MCP_MAX_BODY_BYTES);
    assert.ok(bytes >= maxBody, `${bytes} >= MCP_MAX_BODY_BYTES ${maxBody}`);
  });

  test('more than one replica comes with the shared Redis and MCP_STATE_SECRET', () => {
    const hpa = one('HorizontalPodAutoscaler');
    assert.equal(hpa.spec.scaleTargetRef.name, deployment.metadata.name);
    assert.ok(hpa.spec.minReplicas >= 2 && hpa.spec.maxReplicas >= hpa.spec.minReplicas);
    const redisUrl = new URL(secret.stringData.MCP_REDIS_URL);
    const redisService = one('Service', redisUrl.hostname);
    assert.ok(redisService.spec.ports.some((p: Manifest) => p.port === Number(redisUrl.port)));
    const redis = one('StatefulSet', 'mcp-toolkit-redis');
    assert.ok(labelsMatch(redisService.spec.selector, redis.spec.template.metadata.labels));
    assert.equal(redis.spec.serviceName, redisService.metadata.name);
    assert.ok(secret.stringData.MCP_STATE_SECRET, 'MCP_STATE_SECRET is in the Secret');
  });

  test('Prometheus scrapes MCP_METRICS_PORT: the pod annotations and the ServiceMonitor name the metrics port and /metrics', async () => {
    const known = await knownSettings();
    const port = Number(config.MCP_METRICS_PORT);
    assert.ok(Number.isInteger(port) && port > 0, 'MCP_METRICS_PORT is set in the ConfigMap');
    known.parse({ MCP_METRICS_PORT: config.MCP_METRICS_PORT! });
    const metrics = (container.ports as Manifest[]).find((p) => p.name === 'metrics');
    assert.equal(metrics?.containerPort, port);
    const annotations = deployment.spec.template.metadata.annotations as Record<string, string>;
    assert.equal(annotations['prometheus.io/scrape'], 'true');
    assert.equal(annotations['prometheus.io/port'], String(port));
    assert.equal(annotations['prometheus.io/path'], '/metrics');
    // The metrics port binds MCP_HTTP_HOST by default: every interface of the pod.
    assert.equal(effectiveEnv.MCP_METRICS_HOST ?? effectiveEnv.MCP_HTTP_HOST, '0.0.0.0');
    const monitor = example('servicemonitor.example.yaml');
    assert.equal(monitor.kind, 'ServiceMonitor');
    assert.ok(labelsMatch(monitor.spec.selector.matchLabels, service.metadata.labels));
    const endpoint = monitor.spec.endpoints[0];
    assert.equal(endpoint.path, '/metrics');
    const servicePort = (service.spec.ports as Manifest[]).find((p) => p.name === endpoint.port);
    assert.equal(servicePort?.targetPort, 'metrics');
  });

  test('the CPU HPA is the default; the example scales on the in-flight gauge the server exports, and CPU', () => {
    const cpu = one('HorizontalPodAutoscaler');
    assert.deepEqual(
      cpu.spec.metrics.map((m: Manifest) => m.resource?.name),
      ['cpu'],
    );
    const inflight = example('hpa-active-requests.example.yaml');
    assert.equal(inflight.kind, 'HorizontalPodAutoscaler');
    assert.deepEqual(inflight.spec.scaleTargetRef, cpu.spec.scaleTargetRef);
    const pods = inflight.spec.metrics.find((m: Manifest) => m.type === 'Pods');
    // The Prometheus name of the gauge: the conventions' name with `_` for `.`.
    assert.equal(pods?.pods.metric.name, Metric.ActiveRequests.replaceAll('.', '_'));
    assert.equal(pods?.pods.target.type, 'AverageValue');
    assert.ok(
      inflight.spec.metrics.some((m: Manifest) => m.resource?.name === 'cpu'),
      'CPU too',
    );
    const readme = readFileSync(path.join(DIR, 'README.md'), 'utf8');
    assert.ok(
      readme.includes(`seriesQuery: '${pods.pods.metric.name}{namespace!="",pod!=""}'`),
      'k8s/README.md gives the adapter rule for this metric',
    );
  });

  test("the server's NetworkPolicy admits only the ingress controller on the MCP port and Prometheus on the metrics port; Redis's only the server", () => {
    const policy = one('NetworkPolicy', 'mcp-toolkit');
    assert.ok(labelsMatch(policy.spec.podSelector.matchLabels, deployment.spec.template.metadata.labels));
    assert.deepEqual(policy.spec.policyTypes, ['Ingress']);
    const rules = policy.spec.ingress as Manifest[];
    const admitted = rules.map((r) => ({
      from: r.from.map((f: Manifest) => f.namespaceSelector?.matchLabels?.['kubernetes.io/metadata.name']),
      ports: r.ports.map((p: Manifest) => p.port),
    }));
    assert.deepEqual(admitted, [
      { from: ['ingress-nginx'], ports: ['http'] },
      { from: ['monitoring'], ports: ['metrics'] },
    ]);
    assert.equal(ingress.spec.ingressClassName, 'nginx', 'the controller the policy admits');
    for (const name of ['http', 'metrics']) {
      assert.ok(
        container.ports.some((p: Manifest) => p.name === name),
        `the container port ${name}`,
      );
    }
    const redisPolicy = one('NetworkPolicy', 'mcp-toolkit-redis');
    const from = (redisPolicy.spec.ingress as Manifest[]).flatMap((r) => r.from);
    assert.equal(from.length, 1);
    assert.ok(labelsMatch(from[0].podSelector.matchLabels, deployment.spec.template.metadata.labels));
  });

  test('the PodDisruptionBudget covers the pods and never blocks every drain', () => {
    const pdb = one('PodDisruptionBudget');
    const hpa = one('HorizontalPodAutoscaler');
    assert.ok(labelsMatch(pdb.spec.selector.matchLabels, deployment.spec.template.metadata.labels));
    assert.ok(pdb.spec.minAvailable < hpa.spec.minReplicas, 'one pod may always be evicted');
  });
});
