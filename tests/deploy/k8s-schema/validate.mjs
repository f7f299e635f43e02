// Offline validation of the Kubernetes manifests (docs/compose.md § Validated how): every
// document of deploy/k8s/*.yaml against the Kubernetes OpenAPI schemas that the npm package
// kubernetes-models ships (no cluster, no network), plus Fleet Replay's own rules: every
// container runs the one fleet-replay image, and kustomization.yaml names only files that
// exist. Exit 1 with one line per problem.
//   node validate.mjs DIR
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";
import * as models from "kubernetes-models";

const dir = process.argv[2];
if (!dir) {
  console.error("usage: node validate.mjs DEPLOY_K8S_DIR");
  process.exit(2);
}
const problems = [];
let checked = 0;

// "networking.k8s.io/v1" -> models.networkingK8sIo.v1; "v1" -> models.v1
function modelFor(apiVersion, kind) {
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  const ns = group === ""
    ? models[version]
    : models[group.split(".").map((p, i) => (i ? p[0].toUpperCase() + p.slice(1) : p)).join("")]?.[version];
  return ns?.[kind];
}

function containers(doc) {
  const spec = doc.kind === "Pod" ? doc.spec
    : doc.kind === "Job" || doc.kind === "Deployment" || doc.kind === "StatefulSet"
      ? doc.spec?.template?.spec : null;
  return spec ? [...(spec.initContainers ?? []), ...(spec.containers ?? [])] : [];
}

for (const file of readdirSync(dir).filter((f) => f.endsWith(".yaml")).sort()) {
  const text = readFileSync(join(dir, file), "utf8");
  for (const [i, d] of parseAllDocuments(text).entries()) {
    const where = `${file} document ${i + 1}`;
    if (d.errors.length) {
      problems.push(`${where}: YAML: ${d.errors[0].message}`);
      continue;
    }
    const doc = d.toJS();
    if (!doc) continue;
    if (doc.kind === "Kustomization") {
      for (const r of doc.resources ?? [])
        if (!existsSync(join(dir, r))) problems.push(`${where}: resource ${r} does not exist`);
      if (!(doc.images ?? []).some((im) => im.name === "fleet-replay"))
        problems.push(`${where}: no images entry for fleet-replay`);
      checked++;
      continue;
    }
    const Model = modelFor(doc.apiVersion ?? "", doc.kind ?? "");
    if (!Model) {
      problems.push(`${where}: no schema for apiVersion ${doc.apiVersion} kind ${doc.kind}`);
      continue;
    }
    try {
      new Model(doc).validate();
    } catch (e) {
      const details = (e.errors ?? []).slice(0, 3).map((x) => `${x.instancePath} ${x.message}`);
      problems.push(`${where} (${doc.kind} ${doc.metadata?.name}): ${details.join("; ") || e.message}`);
    }
    for (const c of containers(doc)) {
      if (!/^fleet-replay(:[\w.-]+)?$/.test(c.image ?? ""))
        problems.push(`${where}: container ${c.name} runs ${c.image}, not the fleet-replay image`);
    }
    checked++;
  }
}
for (const p of problems) console.error(`k8s-schema: ${p}`);
console.log(`k8s-schema: ${checked} documents checked against the Kubernetes schemas ` +
            `(kubernetes-models), ${problems.length} problem(s)`);
process.exit(problems.length ? 1 : 0);
