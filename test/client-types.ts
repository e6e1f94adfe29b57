// Whether answers match a client's own TypeScript types, checked by the compiler: each answer is
// written as an object literal declared with the type its method returns, and the file is
// type-checked under `strict`. A literal is held to its type field by field, so a required field
// missing, a value of another type and (where the type has no index signature) a field the type
// does not know each fail. Every field is on its own line, so a problem is told by the answer's
// label and the path of the field, lists' items as `[]`.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** An answer to check: what it is, the type it is declared with (a TypeScript type expression), and the answer. */
export interface Answer {
  label: string;
  type: string;
  value: unknown;
}

const modules = path.resolve(import.meta.dirname, '..', 'node_modules');
/** pokedex-promise-v2's types declare their module ambiently: the file is given to the compiler as a root. */
const pokedexTypes = path.join(modules, 'pokedex-promise-v2', 'types', 'index.d.ts');

const HEADER = [
  "import type { MainClient } from 'pokenode-ts';",
  "import type Pokedex from 'pokedex-promise-v2';",
  '/** What a pokenode-ts method answers. */',
  'type Of<M> = M extends (...args: any[]) => Promise<infer R> ? R : never;',
  '/** What a pokedex-promise-v2 method answers for one name or id: the first of its overloads. */',
  'type One<M> = M extends { (a: string | number, ...r: any[]): Promise<infer R>; (...a: any[]): any; (...a: any[]): any } ? R : Of<M>;',
  '',
];

/** One line of the file, and the path of the field it holds (none for the lines around the literals). */
interface Line {
  text: string;
  at?: { label: string; path: string; value: unknown };
}

/**
 * The problems the compiler finds, one line each (`<label> <path>: <problem>`), sorted and without
 * repeats. `dir` is a folder for the file.
 */
export function typeProblems(answers: Answer[], dir: string): string[] {
  const lines: Line[] = HEADER.map((text) => ({ text }));
  answers.forEach((answer, i) => {
    // A field missing from the answer itself is told at its name.
    lines.push({ text: `export const a${i}: ${answer.type} =`, at: { label: answer.label, path: '', value: answer.value } });
    literal(answer.value, '', answer.label, lines, ';');
  });
  const file = path.join(dir, 'answers.ts');
  fs.writeFileSync(file, lines.map((line) => line.text).join('\n'));
  const program = ts.createProgram([file, pokedexTypes], {
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    esModuleInterop: true,
    types: [],
    // The language's declarations alone: the DOM's, which no answer needs, would only add to what is read.
    lib: ['lib.es2022.d.ts'],
    paths: { 'pokenode-ts': [path.join(modules, 'pokenode-ts', 'lib', 'index.d.ts')] },
  });
  const checker = program.getTypeChecker();
  const found = ts.getPreEmitDiagnostics(program).map((d) => told(d, lines, checker));
  return [...new Set(found)].sort();
}

/** `value` as lines of a TypeScript literal, each field on its own line, each line knowing its path. */
function literal(value: unknown, at: string, label: string, lines: Line[], end: string, key = ''): void {
  const where = { label, path: at, value };
  const open = (bracket: string) => lines.push({ text: `${key}${bracket}`, at: where });
  if (Array.isArray(value) && value.length) {
    open('[');
    for (const item of value) literal(item, `${at}[]`, label, lines, ',');
    lines.push({ text: `]${end}` });
  } else if (value && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length) {
    open('{');
    for (const [k, v] of Object.entries(value)) literal(v, at ? `${at}.${k}` : k, label, lines, ',', `${JSON.stringify(k)}: `);
    lines.push({ text: `}${end}` });
  } else lines.push({ text: `${key}${JSON.stringify(value)}${end}`, at: where });
}

/** A diagnostic as `<label> <path>: <problem>`, in words that do not hold the literal's own type. */
function told(d: ts.Diagnostic, lines: Line[], checker: ts.TypeChecker): string {
  const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -1;
  const at = lines[line]?.at;
  const message = ts.flattenDiagnosticMessageText(d.messageText, '\n').split('\n')[0]!;
  if (!at) return `(outside the answers) ${message}`;
  const unknown = /and '"?([^'"]+)"?' does not exist in type '([^']+)'/.exec(message);
  // An object where the type has a list: told at its first field, as a field the list does not know.
  if (unknown?.[2]!.endsWith('[]')) return `${at.label} ${at.path.replace(/\.[^.]+$/, '')}: an object, not ${unknown[2]}`;
  const lacking = MISSING.includes(d.code) ? lacks(d, at.value, checker) : undefined;
  return `${at.label} ${at.path || '(the answer)'}: ${lacking ?? problem(d.code, message, at.value, unknown)}`;
}

/** The codes of a literal lacking properties its type requires. */
const MISSING = [2739, 2740, 2741];

/**
 * Every property the type requires that the literal lacks, sorted, as the compiler's message names
 * only the first few, in an order of its own.
 */
function lacks(d: ts.Diagnostic, value: unknown, checker: ts.TypeChecker): string | undefined {
  const literal = literalAt(d.file!, d.start!);
  const type = literal && checker.getContextualType(literal);
  if (!type || !value || typeof value !== 'object') return undefined;
  const required = checker.getPropertiesOfType(type).filter((p) => !(p.flags & ts.SymbolFlags.Optional));
  const names = required.map((p) => p.name).filter((name) => !(name in value));
  return `lacks ${names.sort().join(', ')} (required by ${checker.typeToString(type)})`;
}

/** The object literal a diagnostic at `pos` is about: the value of the name it points at, or the literal itself. */
function literalAt(file: ts.SourceFile, pos: number): ts.ObjectLiteralExpression | undefined {
  let node: ts.Node | undefined;
  const visit = (n: ts.Node) => {
    if (pos < n.getStart(file) || pos >= n.getEnd()) return;
    node = n;
    ts.forEachChild(n, visit);
  };
  visit(file);
  for (let n = node; n; n = n.parent) {
    if (ts.isObjectLiteralExpression(n)) return n;
    if ((ts.isPropertyAssignment(n) || ts.isVariableDeclaration(n)) && n.initializer && ts.isObjectLiteralExpression(n.initializer))
      return n.initializer;
  }
  return undefined;
}

function problem(code: number, message: string, value: unknown, unknown: RegExpExecArray | null): string {
  const missing = /Property '([^']+)' is missing in type .* but required in type '([^']+)'/.exec(message);
  const missingSome = /is missing the following properties from type '([^']+)': (.*)$/.exec(message);
  const other = /is not assignable to type '([^']+)'/.exec(message);
  if (unknown) return `not in ${unknown[2]}`;
  if (missing) return `lacks ${missing[1]} (required by ${missing[2]})`;
  if (missingSome) return `lacks ${missingSome[2]} (required by ${missingSome[1]})`;
  if (other) return `${shapeOf(value)}, not ${other[1]}`;
  return `TS${code} ${message}`;
}

const shapeOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value);
