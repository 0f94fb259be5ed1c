/**
 * Every manifest under k8s/ (the examples included) against the Kubernetes API's own schemas,
 * offline, the way `kubectl --dry-run=client` or kubeconform would check them without a
 * cluster: kubernetes-models carries the OpenAPI schemas of the API (and
 * @kubernetes-models/prometheus-operator the ServiceMonitor's CRD) as validators (types,
 * required fields, formats) and as TypeScript interfaces, which catch what the validators let
 * through: a field the API does not know (kubeconform's -strict), here by TypeScript's
 * excess-property check on each manifest written out as an object literal of its kind's type.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { REPO_ROOT } from '../helpers/spawn-server.ts';

// biome-ignore lint/suspicious/noExplicitAny: manifests are free-form YAML until a model checks them.
type Manifest = Record<string, any>;

interface Located {
  readonly where: string;
  readonly manifest: Manifest;
}

const DIR = path.join(REPO_ROOT, 'k8s');
const located: Located[] = [];
for (const file of readdirSync(DIR).filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml')) {
  for (const doc of parseAllDocuments(readFileSync(path.join(DIR, file), 'utf8'))) {
    const manifest = doc.toJS() as Manifest | null;
    if (manifest)
      located.push({ where: `k8s/${file}: ${manifest.kind} ${manifest.metadata?.name}`, manifest });
  }
}

/** The module of a kind's model: `apps/v1` + `StatefulSet` → `kubernetes-models/apps/v1/StatefulSet`. */
function modelModule(apiVersion: string, kind: string): string {
  const pkg = apiVersion.startsWith('monitoring.coreos.com/')
    ? '@kubernetes-models/prometheus-operator'
    : 'kubernetes-models';
  return `${pkg}/${apiVersion}/${kind}`;
}

interface Model {
  validate(): void;
}
type ModelClass = new (data: Manifest) => Model;

async function modelOf(manifest: Manifest): Promise<ModelClass> {
  const mod = (await import(modelModule(manifest.apiVersion, manifest.kind))) as Record<string, ModelClass>;
  const model = mod[manifest.kind];
  assert.ok(model, `no model for ${manifest.apiVersion} ${manifest.kind}`);
  return model;
}

/** The schema's complaint about a manifest, or undefined when it is valid. */
async function schemaError(manifest: Manifest): Promise<string | undefined> {
  const Model = await modelOf(manifest);
  try {
    new Model(manifest).validate();
    return undefined;
  } catch (error) {
    return String(error);
  }
}

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/**
 * tsc's complaints about the manifests written as literals of their kinds' interfaces (`I<Kind>`
 * of the same module), one line each; empty when every field is one the API knows.
 */
function unknownFields(items: readonly Located[]): string[] {
  const dir = mkdtempSync(path.join(REPO_ROOT, 'node_modules', '.k8s-schema-'));
  dirs.push(dir);
  const lines = items.map(({ manifest }, i) => {
    const spec = modelModule(manifest.apiVersion, manifest.kind);
    return `import type { I${manifest.kind} as T${i} } from '${spec}';\nexport const m${i}: T${i} = ${JSON.stringify(manifest)};`;
  });
  writeFileSync(path.join(dir, 'manifests.ts'), `${lines.join('\n')}\n`);
  writeFileSync(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        module: 'nodenext',
        moduleResolution: 'nodenext',
        target: 'es2022',
        skipLibCheck: true,
        types: [],
      },
      files: ['manifests.ts'],
    }),
  );
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const r = spawnSync(process.execPath, [tsc, '-p', dir], { encoding: 'utf8', timeout: 300_000 });
  assert.equal(r.error, undefined, String(r.error));
  return r.stdout
    .split('\n')
    .filter((l) => /error TS/.test(l))
    .map((l) => {
      const index = Number(/manifests\.ts\((\d+),/.exec(l)?.[1] ?? 0);
      return `${items[Math.floor((index - 1) / 2)]?.where ?? '?'}: ${l.replace(/^.*error /, '')}`;
    });
}

describe('k8s manifests against the Kubernetes API schemas', () => {
  test('every manifest has a model and passes its schema', async () => {
    assert.ok(located.length >= 10, `the manifests were found (${located.length})`);
    const errors: string[] = [];
    for (const { where, manifest } of located) {
      const error = await schemaError(manifest);
      if (error !== undefined) errors.push(`${where}: ${error}`);
    }
    assert.deepEqual(errors, []);
  });

  test('a wrong type and a missing required field are caught', async () => {
    const statefulSet = located.find((l) => l.manifest.kind === 'StatefulSet')?.manifest as Manifest;
    const copy = (): Manifest => structuredClone(statefulSet);
    const wrongType = copy();
    wrongType.spec.replicas = 'one';
    assert.match((await schemaError(wrongType)) ?? '', /spec\/replicas must be integer/);
    const missing = copy();
    delete missing.spec.template.spec.containers[0].name;
    assert.match((await schemaError(missing)) ?? '', /containers\/0 must have required property name/);
  });

  test('no manifest has a field the API does not know; a typo in a copy is found', {
    timeout: 300_000,
  }, () => {
    // One tsc run over every manifest and a copy with a misspelt field: only the copy is reported.
    const statefulSet = located.find((l) => l.manifest.kind === 'StatefulSet')?.manifest as Manifest;
    const typo = structuredClone(statefulSet);
    typo.spec.template.spec.containers[0].imagePullPolicyy = 'Always';
    const found = unknownFields([...located, { where: 'the misspelt copy', manifest: typo }]);
    assert.equal(found.length, 1, found.join('\n'));
    assert.match(found[0] ?? '', /^the misspelt copy: .*imagePullPolicyy/);
  });
});
