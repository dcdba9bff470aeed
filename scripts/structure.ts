import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

/**
 * The house's shape, measured: which folder may import which, where the import circles are, and the functions
 * and files that grew past their bounds. `npx tsx scripts/structure.ts` prints every finding; the structure
 * test fails on any.
 */

/**
 * Folders from the bottom up: a file may import from its own folder or a lower one, never a higher one. The control
 * law is the floor (it imports nothing else); the load file's format sits under both the model and the operator
 * tools that write it; the model (lib/sim) under the comparisons run on it and the views of a run.
 */
export const LAYERS: readonly (readonly string[])[] = [
  ['lib/control'],
  ['lib/telemetry.ts', 'lib/budget-environment.ts', 'lib/ticker-environment.ts'],
  ['lib/aws', 'lib/load-file'],
  ['lib/sim'],
  ['lib/views'],
  ['lib/bench', 'lib/operator'],
  ['lib/cdk'],
  ['lib/index.ts', 'functions'],
  ['bin', 'examples', 'scripts', 'test'],
];

export const LIMITS = {
  /** No function in these folders over this many lines. */
  functionLines: { folders: ['lib/control', 'functions'], max: 60 },
  /** No file in these folders over this many lines. */
  fileLines: { folders: ['lib/control'], max: 400 },
  /** The model's folder, all files together. */
  folderLines: { folder: 'lib/sim', max: 4_500 },
} as const;

export interface Finding {
  readonly kind: 'upward-import' | 'circle' | 'long-function' | 'long-file' | 'large-folder';
  readonly text: string;
}

function layerOf(path: string): number | undefined {
  const index = LAYERS.findIndex((layer) =>
    layer.some((entry) => path === entry || path.startsWith(`${entry}/`)),
  );
  return index < 0 ? undefined : index;
}

function sourceFiles(root: string, folder: string): string[] {
  const dir = join(root, folder);
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.flatMap((name) => {
    const path = join(folder, name);
    if (name === 'node_modules' || name.startsWith('.')) return [];
    if (statSync(join(root, path)).isDirectory()) return sourceFiles(root, path);
    return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
  });
}

/** The project's own files each file imports (relative specifiers only; type-only imports count too). */
function importsOf(root: string, file: string, source: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier !== undefined &&
      ts.isStringLiteral(node.moduleSpecifier) &&
      node.moduleSpecifier.text.startsWith('.')
    ) {
      const target = relative(root, resolve(root, dirname(file), node.moduleSpecifier.text));
      found.push(target.endsWith('.ts') ? target : `${target}.ts`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function lineCount(source: ts.SourceFile, node: ts.Node): number {
  const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
  const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
  return end - start + 1;
}

function functionName(node: ts.Node): string {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name)
    return node.name.getText();
  if (ts.isVariableDeclaration(node.parent) && ts.isIdentifier(node.parent.name))
    return node.parent.name.text;
  if (ts.isPropertyAssignment(node.parent)) return node.parent.name.getText();
  return '(anonymous)';
}

function longFunctions(file: string, source: ts.SourceFile, max: number): Finding[] {
  const found: Finding[] = [];
  const visit = (node: ts.Node) => {
    if (
      ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isArrowFunction(node) ||
      ts.isFunctionExpression(node)
    ) {
      const lines = lineCount(source, node);
      if (lines > max)
        found.push({
          kind: 'long-function',
          text: `${file}: ${functionName(node)} is ${lines} lines (> ${max})`,
        });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every circle in the import graph, each once (Tarjan's strongly connected components of two or more files). */
function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const connect = (node: string) => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1) components.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) connect(node);
  return components;
}

export function structureFindings(root: string): Finding[] {
  const files = ['lib', 'functions', 'bin', 'scripts', 'examples'].flatMap((f) => sourceFiles(root, f));
  const findings: Finding[] = [];
  const graph = new Map<string, string[]>();
  const lines = new Map<string, number>();
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    lines.set(file, text.split('\n').length);
    const imports = importsOf(root, file, source);
    graph.set(file, imports);
    const own = layerOf(file);
    for (const target of imports) {
      const theirs = layerOf(target);
      if (own !== undefined && theirs !== undefined && theirs > own)
        findings.push({ kind: 'upward-import', text: `${file} imports ${target} (a higher folder)` });
    }
    const { folders, max } = LIMITS.functionLines;
    if (folders.some((f) => file.startsWith(`${f}/`))) findings.push(...longFunctions(file, source, max));
  }
  for (const component of circles(graph))
    findings.push({ kind: 'circle', text: `import circle: ${component.join(' → ')}` });
  for (const [file, count] of lines) {
    const { folders, max } = LIMITS.fileLines;
    if (folders.some((f) => file.startsWith(`${f}/`)) && count > max)
      findings.push({ kind: 'long-file', text: `${file} is ${count} lines (> ${max})` });
  }
  const { folder, max } = LIMITS.folderLines;
  const total = [...lines].filter(([f]) => f.startsWith(`${folder}/`)).reduce((sum, [, n]) => sum + n, 0);
  if (total > max) findings.push({ kind: 'large-folder', text: `${folder} is ${total} lines (> ${max})` });
  return findings;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const findings = structureFindings(process.cwd());
  for (const f of findings) console.log(`${f.kind}: ${f.text}`);
  console.log(findings.length === 0 ? 'structure: clean' : `structure: ${findings.length} findings`);
  process.exitCode = findings.length === 0 ? 0 : 1;
}
