// `npm start`: build the shipped world, then serve it.
import { build } from '../pipeline/build.ts';
import { summary } from './build.ts';
import { baseUrlFromEnv, portFromEnv, UsageError } from '../config.ts';
import { OutputFailed } from '../output/failure.ts';
import { defaultOutDir, editorSchemasDir } from '../paths.ts';
import { BuildFailed, formatProblems } from '../report/problems.ts';
import { createServer, listen } from '../site/serve.ts';

const port = portFromEnv();
try {
  console.log(
    summary(
      await build({ editorSchemas: editorSchemasDir, baseUrl: process.env.BASE_URL ? baseUrlFromEnv() : `http://localhost:${port}` }),
    ),
  );
} catch (err) {
  if (err instanceof UsageError) {
    console.error(err.message);
    process.exit(2);
  }
  if (err instanceof OutputFailed) {
    console.error(err.message);
    process.exit(3);
  }
  if (!(err instanceof BuildFailed)) throw err;
  console.error(formatProblems(err.problems));
  process.exit(1);
}
const url = await listen(createServer(defaultOutDir), port, process.env.HOST ?? '127.0.0.1');
console.log(`serving dist/ at ${url.replace('127.0.0.1', 'localhost')}/api/v2/ (Ctrl-C to stop)`);
