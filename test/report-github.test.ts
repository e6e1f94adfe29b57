// `--report github`: problems as GitHub workflow commands, escaped as the Actions runner reads
// them, pointing at the line and column of the offending value.
import fs from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Problem } from '../build/report/problems.ts';
import { escapeData, escapeProperty, formatGithub } from '../build/report/github.ts';
import { buildProblems, fixtureWorld } from './helpers.ts';

/** Reads a command line back the way the Actions runner does (ActionCommand.TryParseV2). */
function parseCommand(line: string): { command: string; props: Record<string, string>; message: string } {
  expect(line.startsWith('::')).toBe(true);
  const end = line.indexOf('::', 2);
  expect(end).toBeGreaterThan(2);
  const head = line.slice(2, end);
  const space = head.indexOf(' ');
  const command = space === -1 ? head : head.slice(0, space);
  const props: Record<string, string> = {};
  if (space !== -1) {
    for (const pair of head.slice(space + 1).split(',')) {
      const eq = pair.indexOf('=');
      props[pair.slice(0, eq)] = unescapeProperty(pair.slice(eq + 1));
    }
  }
  return { command, props, message: unescapeData(line.slice(end + 2)) };
}
const unescapeData = (s: string) => s.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%25/g, '%');
const unescapeProperty = (s: string) =>
  s.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%3A/g, ':').replace(/%2C/g, ',').replace(/%25/g, '%');

describe('formatGithub', () => {
  it('writes one error command per problem with file, line, col and title', () => {
    const problems: Problem[] = [
      {
        file: 'data/type/fire.yaml',
        line: 3,
        column: 5,
        kind: 'type',
        record: 'fire',
        pointer: '/generation',
        message: 'no generation is named "gen-9"',
      },
    ];
    expect(formatGithub(problems)).toBe(
      '::error file=data/type/fire.yaml,line=3,col=5,title=type fire at /generation::no generation is named "gen-9"',
    );
  });

  it('escapes %, CR, LF, ":" and "," in properties, and %, CR, LF in the message', () => {
    expect(escapeProperty('a%b\rc\nd:e,f')).toBe('a%25b%0Dc%0Ad%3Ae%2Cf');
    expect(escapeData('a%b\rc\nd:e,f')).toBe('a%25b%0Dc%0Ad:e,f');
    // "%3A" written by an author must survive as itself, not turn into ":".
    expect(escapeProperty('100%3A')).toBe('100%253A');

    const tricky: Problem = {
      file: 'data/weird,name:x.yaml',
      line: 7,
      column: 2,
      kind: 'stat',
      record: 'a,b',
      pointer: '/names/0/name',
      message: 'must be 50% or less:\r\nline two, with a comma: and "::" inside',
      hint: 'write 50%25 as it is',
    };
    const line = formatGithub([tricky]);
    expect(line.split('\n')).toHaveLength(1);
    expect(line).not.toMatch(/[\r]/);
    const parsed = parseCommand(line);
    expect(parsed.command).toBe('error');
    expect(parsed.props).toEqual({ file: tricky.file, line: '7', col: '2', title: 'stat a,b at /names/0/name' });
    expect(parsed.message).toBe(`${tricky.message}\nhint: ${tricky.hint}`);
  });

  it('sorts by file, line and column, leaves out what is unknown, and can prefix a root', () => {
    const problems: Problem[] = [
      { file: 'data/stat/hp.yaml', line: 9, column: 1, pointer: '', message: 'second' },
      { file: 'data/gender/male.yaml', pointer: '', message: 'first' },
      { file: 'data/stat/hp.yaml', line: 2, column: 4, pointer: '', message: 'between' },
    ];
    const lines = formatGithub(problems).split('\n');
    expect(lines).toEqual([
      '::error file=data/gender/male.yaml,title=problem in the file::first',
      '::error file=data/stat/hp.yaml,line=2,col=4,title=problem in the file::between',
      '::error file=data/stat/hp.yaml,line=9,col=1,title=problem in the file::second',
    ]);
    expect(formatGithub(problems.slice(0, 1), { root: 'service' })).toBe(
      '::error file=service/data/stat/hp.yaml,line=9,col=1,title=problem in the file::second',
    );
    expect(formatGithub([])).toBe('');
  });
});

describe('formatGithub on a real build', () => {
  const roots: string[] = [];
  afterAll(async () => {
    for (const root of roots) await fs.rm(root, { recursive: true, force: true });
  });

  it('points each annotation at the line and column of the bad value in the source file', async () => {
    const world = await fixtureWorld('starter');
    roots.push(world.root);
    const file = path.join(world.data, 'stat', 'attack.yaml');
    const text = (await fs.readFile(file, 'utf8')).replace('move_damage_class: physical', 'move_damage_class: phisical');
    await fs.writeFile(file, text);

    const problems = await buildProblems({ dataDir: world.data, outDir: world.out, check: true });
    const commands = formatGithub(problems).split('\n').map(parseCommand);
    const hit = commands.find((c) => c.props.file === 'data/stat/attack.yaml');
    expect(hit, formatGithub(problems)).toBeDefined();
    expect(hit!.command).toBe('error');
    expect(hit!.message).toContain('phisical');
    expect(hit!.props.title).toBe('stat attack at /move_damage_class');
    // The annotation lands on the misspelt value.
    const lines = text.split('\n');
    const lineNo = lines.findIndex((l) => l.includes('phisical')) + 1;
    expect(Number(hit!.props.line)).toBe(lineNo);
    expect(Number(hit!.props.col)).toBe(lines[lineNo - 1]!.indexOf('phisical') + 1);
  });
});
