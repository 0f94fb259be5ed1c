/**
 * The deploy files a new project asks for: a Dockerfile (production dependencies from the
 * lockfile, the project's plugins and settings file, a non-root user, HTTP on 8000 with a
 * health check), fly.toml (Fly.io builds that Dockerfile) and Kubernetes manifests (a
 * Deployment with probes on /healthz and /readyz, and a Service).
 */
import type { Choices } from './choices.ts';

const NODE_IMAGE = 'node:24-slim';

function dockerfile(): string {
  return `# The server as a container: streamable HTTP on port 8000, path /mcp.
#   docker build -t my-server .
#   docker run --rm -p 8000:8000 -e MCP_AUTH=api_key -e MCP_API_KEYS=me:$(openssl rand -hex 32) my-server
# Beyond loopback the server refuses MCP_AUTH=none unless MCP_ALLOW_PUBLIC_UNAUTHENTICATED=true.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE}
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json mcp-toolkit.env ./
COPY plugins ./plugins
RUN mkdir -p /app/workspace && chown 1000:1000 /app/workspace
ENV MCP_HTTP_HOST=0.0.0.0 MCP_LOG_FORMAT=json NODE_ENV=production
EXPOSE 8000
USER 1000
HEALTHCHECK --interval=30s --timeout=3s CMD node -e "fetch('http://127.0.0.1:8000/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "--env-file=mcp-toolkit.env", "node_modules/@mcp-toolkit/server/bin/mcp-toolkit.js", "run", "--transport", "http"]
`;
}

const DOCKERIGNORE = `node_modules
.env
.git
*.mcpb
test
workspace
`;

function flyToml(c: Choices): string {
  return `# fly launch --no-deploy, then fly secrets set MCP_API_KEYS=... (or the OAuth settings), fly deploy
app = "${c.plugin}"

[build]
  dockerfile = "Dockerfile"

[env]
  MCP_PUBLIC_URL = "https://${c.plugin}.fly.dev"

[http_service]
  internal_port = 8000
  force_https = true
  auto_stop_machines = "stop"
  auto_start_machines = true

  [[http_service.checks]]
    method = "GET"
    path = "/healthz"
    interval = "30s"
    timeout = "3s"
`;
}

function k8s(c: Choices): Record<string, string> {
  const name = c.plugin;
  return {
    'k8s/deployment.yaml': `# kubectl apply -f k8s/ after pushing the image (set image: below) and creating the
# secret: kubectl create secret generic ${name} --from-literal=MCP_API_KEYS=me:$(openssl rand -hex 32)
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}
spec:
  replicas: 1
  selector:
    matchLabels: { app: ${name} }
  template:
    metadata:
      labels: { app: ${name} }
    spec:
      securityContext: { runAsNonRoot: true, runAsUser: 1000 }
      containers:
        - name: server
          image: ${name}:latest
          ports: [{ containerPort: 8000 }]
          envFrom:
            - secretRef: { name: ${name}, optional: true }
          readinessProbe:
            httpGet: { path: /readyz, port: 8000 }
          livenessProbe:
            httpGet: { path: /healthz, port: 8000 }
          volumeMounts: [{ name: workspace, mountPath: /app/workspace }]
      volumes: [{ name: workspace, emptyDir: {} }]
`,
    'k8s/service.yaml': `apiVersion: v1
kind: Service
metadata:
  name: ${name}
spec:
  selector: { app: ${name} }
  ports: [{ port: 80, targetPort: 8000 }]
`,
  };
}

/** The deploy files chosen, by path. */
export function deployFiles(c: Choices): Record<string, string> {
  const files: Record<string, string> = {};
  if (c.deploy.includes('docker')) {
    files.Dockerfile = dockerfile();
    files['.dockerignore'] = DOCKERIGNORE;
  }
  if (c.deploy.includes('fly')) files['fly.toml'] = flyToml(c);
  if (c.deploy.includes('k8s')) Object.assign(files, k8s(c));
  return files;
}

/** The README's deploy lines. */
export function readmeDeploy(c: Choices): string {
  const lines: string[] = [];
  if (c.deploy.includes('docker'))
    lines.push(
      '- `docker build -t my-server .` builds the image (run `npm install` first: it copies the lockfile).',
    );
  if (c.deploy.includes('fly'))
    lines.push('- `fly launch --no-deploy && fly deploy` deploys it to Fly.io (fly.toml).');
  if (c.deploy.includes('k8s')) lines.push('- `kubectl apply -f k8s/` runs it on Kubernetes.');
  return lines.length > 0 ? `\n## Deploying\n\n${lines.join('\n')}\n` : '';
}
