#!/usr/bin/env node
// Import cycles in src/ (npm run check), read with dpdm:
//   - no file may reach itself through its imports, type-only imports included (a type-only circle
//     still ties two files' designs together, and ADR 0017 promises http/app.ts none);
//   - no module (a top folder of src/, e.g. src/checks) may reach itself through the imports that
//     remain at run time: modules form layers (config and lib at the bottom, main.ts on top).
// Files directly under src/ (main.ts, worker.ts, version.ts…) are modules of their own.
// Exit code 1 with each cycle and the imports that make it; 0 when there is none.
import { parseCircular, parseDependencyTree } from "dpdm";

const FILES = "src/**/*.ts";
const isSource = (id) => typeof id === "string" && id.startsWith("src/") && !id.endsWith(".test.ts");

async function graph(transform) {
  const tree = await parseDependencyTree(FILES, {
    transform,
    skipDynamicImports: false,
    tsconfig: "tsconfig.json",
    exclude: /node_modules|\.test\.ts$/,
  });
  for (const file of Object.keys(tree)) if (!isSource(file)) delete tree[file];
  return tree;
}

const moduleOf = (file) => {
  const parts = file.split("/");
  return parts.length > 2 ? `src/${parts[1]}` : file;
};

/** Strongly connected components of more than one node (Tarjan). */
function cyclesOf(edges) {
  let index = 0;
  const stack = [];
  const onStack = new Set();
  const indexOf = new Map();
  const low = new Map();
  const found = [];
  const visit = (v) => {
    indexOf.set(v, index);
    low.set(v, index++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!indexOf.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), indexOf.get(w)));
    }
    if (low.get(v) === indexOf.get(v)) {
      const component = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of [...edges.keys()].sort()) if (!indexOf.has(v)) visit(v);
  return found;
}

let failed = false;

const allImports = await graph(false);
const fileCycles = parseCircular(allImports);
if (fileCycles.length > 0) {
  failed = true;
  console.error(`File import cycles (type-only imports included): ${fileCycles.length}`);
  for (const cycle of fileCycles) console.error(`  ${[...cycle, cycle[0]].join(" -> ")}`);
}

const runtime = await graph(true);
const moduleEdges = new Map();
const because = new Map();
for (const [file, deps] of Object.entries(runtime)) {
  for (const dep of deps ?? []) {
    if (!isSource(dep.id)) continue;
    const from = moduleOf(file);
    const to = moduleOf(dep.id);
    if (from === to) continue;
    if (!moduleEdges.has(from)) moduleEdges.set(from, new Set());
    moduleEdges.get(from).add(to);
    const key = `${from} ${to}`;
    if (!because.has(key)) because.set(key, []);
    because.get(key).push(`${file} -> ${dep.id}`);
  }
}
const moduleCycles = cyclesOf(moduleEdges);
if (moduleCycles.length > 0) {
  failed = true;
  console.error(`Module cycles (run-time imports between top folders of src/): ${moduleCycles.length}`);
  for (const component of moduleCycles) {
    console.error(`  ${component.join(" <-> ")}`);
    for (const from of component)
      for (const to of component)
        for (const edge of because.get(`${from} ${to}`) ?? []) console.error(`    ${edge}`);
  }
}

if (failed) process.exit(1);
console.log(
  `import cycles: none (${Object.keys(allImports).length} files, ${moduleEdges.size} modules with run-time imports)`,
);
