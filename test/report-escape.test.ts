// Text from the data is shown, never obeyed: a record's name, a field's key or a value holding an
// escape sequence, a one-byte CSI, a bidirectional override or a line break with a workflow command
// goes through `npm run build -- --check` as a real process in each report format, and comes out
// visible (`\x1b`, `\u202e`) in the text and GitHub reports, escaped as GitHub reads workflow
// commands, and as JSON that reads back to the data's own characters.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../build/paths.ts';
import { fixturesDir, fixtureWorld } from './helpers.ts';
import { cpSync } from 'node:fs';

/** What a terminal or a log viewer obeys: controls but the line breaks between lines, DEL, C1, bidi marks. */
// eslint-disable-next-line no-control-regex
const OBEYED = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

async function check(report: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const world = await fixtureWorld();
  cpSync(path.join(fixturesDir, 'control-text', 'data'), world.data, { recursive: true });
  try {
    await promisify(execFile)(
      process.execPath,
      [path.join(projectRoot, 'build/launch.mjs'), 'build', '--check', '--data', world.data, '--report', report],
      {
        cwd: world.root,
        env: { ...process.env, BASE_URL: '', GITHUB_WORKSPACE: world.root, CI: 'true' },
      },
    );
    throw new Error('the check passed');
  } catch (err) {
    const { code, stdout, stderr } = err as { code: number; stdout: string; stderr: string };
    return { code, stdout, stderr };
  }
}

/** Reads a workflow command back as the Actions runner does (ActionCommand.TryParseV2). */
function parseCommand(line: string): { command: string; props: Record<string, string>; message: string } {
  const end = line.indexOf('::', 2);
  const head = line.slice(2, end);
  const space = head.indexOf(' ');
  const props: Record<string, string> = {};
  for (const pair of head.slice(space + 1).split(',')) {
    const eq = pair.indexOf('=');
    props[pair.slice(0, eq)] = unescape(pair.slice(eq + 1), true);
  }
  return { command: head.slice(0, space), props, message: unescape(line.slice(end + 2), false) };
}
const unescape = (s: string, property: boolean) => {
  let out = s.replace(/%0D/g, '\r').replace(/%0A/g, '\n');
  if (property) out = out.replace(/%3A/g, ':').replace(/%2C/g, ',');
  return out.replace(/%25/g, '%');
};

describe('text from the data in the problem reports', () => {
  it('text: every control and bidirectional character is shown as an escape', async () => {
    const { code, stdout, stderr } = await check('text');
    expect(code, stdout + stderr).toBe(1);
    expect(stdout + stderr).not.toMatch(OBEYED);
    expect(stderr).toContain('data/item/potion-escape.yaml:2:7 item potion\\x1b]0;owned\\x07 at /name:');
    expect(stderr).toContain('\\x9b2K'); // a C1 CSI, which JSON.stringify in the message left as it was
    expect(stderr).toContain('data/type/shade.yaml:8:1 type shade at /nam\\u202ees: unknown field "nam\\u202ees"');
    expect(stderr).toContain('5 problems in 2 files');
  }, 60_000);

  it('github: one command a problem, escaped as the runner reads it, with the characters visible', async () => {
    const { code, stdout, stderr } = await check('github');
    expect(code, stdout + stderr).toBe(1);
    expect(stdout + stderr).not.toMatch(OBEYED);
    const lines = stdout.trimEnd().split('\n');
    // A line break in the data starts no command of its own (`::warning::` stays inside a message).
    expect(lines).toHaveLength(5);
    for (const line of lines) expect(line).toMatch(/^::error file=data\//);
    const commands = lines.map(parseCommand);
    expect(commands.map((c) => c.props.title)).toEqual([
      'item potion\\x1b]0;owned\\x07 at /name',
      'type shade at /generation',
      'type shade at /move_damage_class',
      'type shade at /nam\\u202ees',
      'type shade at /odd:key,100%',
    ]);
    expect(lines[4]).toContain('title=type shade at /odd%3Akey%2C100%25::');
    expect(commands[2]!.message).toMatch(/^"special\\n::warning::100%, fine: really" is not a valid name\nhint: /);
    expect(commands[3]!.message).toMatch(/^unknown field "nam\\u202ees"\nhint: /);
    expect(commands[1]!.props).toMatchObject({ file: 'data/type/shade.yaml', line: '6', col: '13' });
  }, 60_000);

  it('json: stays JSON, with every such character escaped, and reads back to the data', async () => {
    const { code, stdout, stderr } = await check('json');
    expect(code, stdout + stderr).toBe(1);
    expect(stdout).not.toMatch(OBEYED);
    const report = JSON.parse(stdout) as { ok: boolean; problems: { record?: string; pointer: string; message: string }[] };
    expect(report.ok).toBe(false);
    expect(report.problems.map((p) => p.record)).toContain('potion\u001b]0;owned\u0007');
    expect(report.problems.map((p) => p.pointer)).toContain('/nam\u202ees');
    expect(report.problems.map((p) => p.message)).toContain('unknown field "nam\u202ees"');
    expect(stdout).toContain('"record": "potion\\u001b]0;owned\\u0007"');
    expect(stdout).toContain('"pointer": "/nam\\u202ees"');
  }, 60_000);
});
