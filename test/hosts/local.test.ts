// The reference: the local server (npm start) over the same built site.
import { afterAll, beforeAll, describe } from 'vitest';
import { serve } from '../helpers.ts';
import { hostBehaviour, site } from './behaviour.ts';

describe('local server (build/site/serve.ts)', () => {
  let server: { url: string; close: () => Promise<void> } | undefined;
  beforeAll(async () => {
    server = await serve(site().dist);
  });
  afterAll(() => server?.close());
  hostBehaviour(() => server!.url, {}, 'pages');
});
