// The GitHub workflows, read as GitHub reads them, since nothing here can run them: each file is
// one YAML document without repeated keys, each job has a runner and steps, each step runs a
// command or uses a pinned action; and what the steps rely on exists: every step output they read
// comes from a step of the same job, every job they wait for is there, every `npm run` names a
// script, every option given to the build is one the build's --help lists, and every path a
// trigger filters on matches files of the project.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import fg from 'fast-glob';
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { projectRoot } from '../build/paths.ts';

interface Step {
  id?: string;
  name?: string;
  uses?: string;
  run?: string;
  with?: Record<string, unknown>;
  env?: Record<string, string>;
}
interface Job {
  name?: string;
  needs?: string | string[];
  if?: string;
  'runs-on': string;
  container?: { image: string; options?: string };
  permissions?: Record<string, string>;
  environment?: { name: string; url?: string };
  steps: Step[];
}
interface Workflow {
  name: string;
  on: Record<string, { paths?: string[]; branches?: string[] } | null>;
  jobs: Record<string, Job>;
}

const folder = path.join(projectRoot, '.github', 'workflows');
const files = fs.readdirSync(folder).filter((f) => /\.ya?ml$/.test(f));

function read(file: string): Workflow {
  const doc = parseDocument(fs.readFileSync(path.join(folder, file), 'utf8'), { uniqueKeys: true, prettyErrors: false });
  expect(
    doc.errors.map((e) => e.message),
    file,
  ).toEqual([]);
  expect(
    doc.warnings.map((e) => e.message),
    file,
  ).toEqual([]);
  return doc.toJS() as Workflow;
}

const scripts = JSON.parse(fs.readFileSync(path.join(projectRoot, 'package.json'), 'utf8')).scripts as Record<string, string>;
const stepWith = (job: Job, uses: string) => job.steps.find((s) => s.uses?.startsWith(`${uses}@`));

describe('every workflow', () => {
  it.each(files)('%s parses, and its jobs and steps are whole', (file) => {
    const workflow = read(file);
    expect(workflow.name).toEqual(expect.any(String));
    expect(Object.keys(workflow.on).length).toBeGreaterThan(0);
    for (const [id, job] of Object.entries(workflow.jobs)) {
      expect(job['runs-on'], id).toEqual(expect.any(String));
      expect(job.steps.length, id).toBeGreaterThan(0);
      for (const need of [job.needs ?? []].flat()) expect(Object.keys(workflow.jobs), `${id} needs ${need}`).toContain(need);
      const ids = job.steps.map((s) => s.id).filter(Boolean);
      for (const step of job.steps) {
        expect(!!step.uses !== !!step.run, `${id}: a step either uses an action or runs a command`).toBe(true);
        if (step.uses) expect(step.uses, id).toMatch(/^[\w-]+\/[\w-]+@v\d+(\.\d+)*$/);
      }
      // Every step output read anywhere in the job (its environment's url, a step's env) is a step's of this job.
      for (const [, ref] of JSON.stringify(job).matchAll(/steps\.([\w-]+)\.outputs/g))
        expect(ids, `${id} reads steps.${ref}`).toContain(ref);
    }
  });

  it.each(files)('%s runs only npm scripts there are, and only options the build knows', async (file) => {
    const commands = Object.values(read(file).jobs).flatMap((job) => job.steps.flatMap((s) => (s.run ? [s.run] : [])));
    const help = (await promisify(execFile)(process.execPath, [path.join(projectRoot, 'build/launch.mjs'), 'build', '--help'])).stdout;
    for (const command of commands) {
      for (const [, script] of command.matchAll(/npm run (?:--silent )?([\w:-]+)/g))
        expect(Object.keys(scripts), command).toContain(script);
      for (const [, options] of command.matchAll(/npm run build -- ([^\n]*)/g))
        for (const [option] of options!.matchAll(/--[\w-]+/g)) expect(help, command).toContain(`  ${option} `);
    }
  });

  it.each(files)('%s filters on paths that hold files of the project', async (file) => {
    for (const trigger of Object.values(read(file).on))
      for (const pattern of trigger?.paths ?? [])
        expect(await fg(pattern, { cwd: projectRoot, dot: true, ignore: ['**/node_modules/**'] }), pattern).not.toEqual([]);
  });
});

describe('test.yml', () => {
  const workflow = read('test.yml');
  const job = workflow.jobs.test!;

  it('runs on pull requests that change code, and not on those that change data alone', async () => {
    const paths = workflow.on.pull_request!.paths!;
    expect(paths).toEqual(
      expect.arrayContaining(['build/**', 'test/**', 'explorer/**', 'schemas/**', 'package.json', 'package-lock.json']),
    );
    const matched = await fg(paths, { cwd: projectRoot, dot: true, ignore: ['**/node_modules/**'] });
    expect(matched).toContain('build/pipeline/build.ts');
    expect(matched.filter((f) => f.startsWith('data/'))).toEqual([]);
  });

  it("runs npm test in Debian as root, where npm test installs Debian's Chromium itself", () => {
    expect(job.container?.image).toMatch(/^node:\d+-(bookworm|trixie)$/);
    expect(scripts.pretest).toContain('test/ensure-packages.sh chromium');
    expect(job.steps.map((s) => s.run)).toContain('npm test');
    expect(stepWith(job, 'actions/checkout')).toBeDefined();
  });
});

describe('data.yml deploys to GitHub Pages', () => {
  const workflow = read('data.yml');
  const pages = workflow.jobs.pages!;

  it('when DEPLOY_TO says so, and to Netlify otherwise, after the data is checked', () => {
    expect(pages.if).toContain("vars.DEPLOY_TO == 'pages'");
    expect(workflow.jobs.deploy!.if).toContain("vars.DEPLOY_TO != 'pages'");
    expect(pages.needs).toBe('check');
  });

  it("builds for the site's own address, uploads dist and deploys it", () => {
    expect(pages.permissions).toMatchObject({ pages: 'write', 'id-token': 'write' });
    expect(pages.environment).toEqual({ name: 'github-pages', url: '${{ steps.deployment.outputs.page_url }}' });
    const site = stepWith(pages, 'actions/configure-pages')!;
    const build = pages.steps.find((s) => s.run?.includes('npm run build'))!;
    expect(build.run).toContain('--github-pages');
    expect(build.env?.BASE_URL).toBe(`\${{ steps.${site.id}.outputs.base_url }}`);
    const upload = stepWith(pages, 'actions/upload-pages-artifact')!;
    expect(upload.with?.path).toBe('dist');
    expect(stepWith(pages, 'actions/deploy-pages')?.id).toBe('deployment');
    const order = [site, build, upload, stepWith(pages, 'actions/deploy-pages')].map((s) => pages.steps.indexOf(s!));
    expect(order).toEqual([...order].sort((a, b) => a - b));
  });
});
