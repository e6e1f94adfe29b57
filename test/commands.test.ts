// Every command as users run it (`node build/launch.mjs <command>`, `npm start`, `npm run gen:world`,
// `npm run bench`): `--help` answers, an option it does not take is refused with the nearest it
// does, and a plain build says which address its urls start with when nobody chose one. The table
// of bad values and folders in every command, and the diff's half-built base, are
// commands-bad-input.test.ts's (the slow suite).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fixtureWorld } from './helpers.ts';
import { COMMANDS, inTurns, run, said, type Command } from './command-run.ts';

/** The usage line each command's help starts with. */
const usage: Partial<Record<Command, string>> = {};

describe('--help and unknown options', () => {
  it('every command answers --help (and -h) with its usage and options, exit code 0, and starts nothing', async () => {
    const ran = await inTurns([...COMMANDS], 3, (command) => run(command, ['--help']));
    for (const [i, command] of COMMANDS.entries()) {
      const { code, stdout, stderr } = ran[i]!;
      expect(code, `${command}: ${stderr}`).toBe(0);
      expect(stdout, command).toMatch(/^Usage: npm (start|run [a-z:]+)\b.*\n/);
      expect(stdout, command).toContain('-h, --help');
      expect(stdout, command).not.toMatch(/serving|explorer at|wrote \d+ records|wrote build/);
      usage[command] = stdout.split('\n')[0]!;
    }
    const short = await run('build', ['-h']);
    expect([short.code, short.stdout.split('\n')[0]]).toEqual([0, usage.build]);
  });

  const misspelt: Array<[Command, string, string]> = [
    ['build', '--chek', '--check'],
    ['start', '--hepl', '--help'],
    ['dev', '--prot', '--port'],
    ['import', '--form', '--from'],
    ['diff', '--bsae', '--base'],
    ['gen:world', '--scael', '--scale'],
    ['bench', '--rusn', '--runs'],
    ['types', '--hepl', '--help'],
  ];
  it('every command refuses a misspelt option with the one it meant, exit code 2, one line and its usage', async () => {
    const ran = await inTurns(misspelt, 3, ([command, typed]) => run(command, [typed]));
    for (const [i, [command, typed, meant]] of misspelt.entries()) {
      const { code, stdout, stderr } = ran[i]!;
      expect(code, `${command}: ${stderr}`).toBe(2);
      expect(stderr.trimEnd().split('\n'), command).toEqual([
        `unknown option ${typed}; did you mean ${meant}?`,
        usage[command] ?? expect.any(String),
      ]);
      expect(stdout, command).not.toMatch(/serving|explorer at/);
    }
  });

  it('refuses an option far from any, an argument no command takes, and an option without its value', async () => {
    const cases: Array<[Command, string[], string]> = [
      ['start', ['--bogus'], 'unknown option --bogus; --help lists the options'],
      ['build', ['-data', 'x'], 'unknown option -data; did you mean --data?'],
      ['build', ['extra'], 'unexpected argument "extra": this command takes options only'],
      ['start', ['extra'], 'unexpected argument "extra": this command takes options only'],
      ['diff', ['main'], 'unexpected argument "main": this command takes options only'],
      ['build', ['--check=yes'], '--check takes no value'],
      ['build', ['--out'], '--out needs a value'],
      ['build', ['--out', '--check'], '--out needs a value, and --check reads as an option (--out=--check gives it as the value)'],
      ['gen:world', ['--out', 'x', 'y'], 'unexpected argument "y": this command takes options only'],
    ];
    const ran = await inTurns(cases, 3, ([command, args]) => run(command, args));
    for (const [i, [command, args, message]] of cases.entries()) {
      const { code, stdout, stderr } = ran[i]!;
      expect(code, `${command} ${args.join(' ')}: ${stderr}`).toBe(2);
      expect(stderr.split('\n')[0], `${command} ${args.join(' ')}`).toBe(message);
      expect(stderr.trimEnd().split('\n').length).toBeLessThanOrEqual(2);
      expect(stdout).not.toMatch(/serving|explorer at/);
    }
  });
});

describe('npm run build -- --plain says which address its urls start with', () => {
  const NOT_SET = 'BASE_URL is not set: every url starts with http://localhost:3000; set it to the address the folder is served from';

  it('in one line on stderr when BASE_URL is not set, and not when it is, or when nothing is written', async () => {
    const w = await fixtureWorld();
    const build = (args: string[], env: NodeJS.ProcessEnv = {}) => run('build', ['--data', w.data, ...args], env);
    const [unset, set, check] = await inTurns(
      [
        () => build(['--out', path.join(w.root, 'a'), '--plain']),
        () => build(['--out', path.join(w.root, 'b'), '--plain'], { BASE_URL: 'https://creatures.example.org' }),
        () => build(['--plain', '--check']),
      ],
      2,
      (job) => job(),
    );
    expect(unset!.code, unset!.stderr).toBe(0);
    expect(said(unset!)).toEqual([NOT_SET]);
    expect(fs.readFileSync(path.join(w.root, 'a/api/v2/index.json'), 'utf8')).toContain('"http://localhost:3000/api/v2/type/"');
    expect(set!.code, set!.stderr).toBe(0);
    expect(said(set!)).toEqual([]);
    expect(check!.code, check!.stderr).toBe(0);
    expect(said(check!)).toEqual([]);
  });
});
