// `npm start` as users run it: a wrong setting is one line and exit code 2, before anything is
// built; two servers on two ports each serve links to their own port, the second built while the
// first serves.
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { npmStart, npmStartExit, type ServerProcess } from './servers.ts';

/** A server of this test's own on 127.0.0.1, to hold a port. */
async function holdPort(): Promise<{ port: number; close: () => void }> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as net.AddressInfo).port, close: () => server.close() };
}

/** Whether this machine can listen on IPv6's loopback. */
async function hasIpv6(): Promise<boolean> {
  const server = net.createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(0, '::1', () => server.close(() => resolve(true)));
  });
}

/** The one line `npm start` printed, checked to be one line and no stack trace, exit code 2. */
async function usageError(env: NodeJS.ProcessEnv): Promise<string> {
  const { code, output } = await npmStartExit(env);
  expect(output, JSON.stringify(env)).not.toMatch(/^\s+at /m);
  expect(output.trim().split('\n'), JSON.stringify(env)).toHaveLength(1);
  expect(code, output).toBe(2);
  return output.trim();
}

describe('npm start refuses a wrong setting in one line, with exit code 2', () => {
  it('a PORT that is not a port number', async () => {
    expect(await usageError({ PORT: 'abc' })).toBe('PORT must be a port number, got "abc"');
    expect(await usageError({ PORT: '99999' })).toBe('PORT must be a port number, got "99999"');
  });

  it('a port in use, naming it', async () => {
    const held = await holdPort();
    try {
      expect(await usageError({ PORT: String(held.port), HOST: '127.0.0.1' })).toMatch(
        new RegExp(`^PORT ${held.port} is in use on 127\\.0\\.0\\.1`),
      );
    } finally {
      held.close();
    }
  });

  it('a HOST that is no address of this machine', async () => {
    for (const host of ['192.0.2.1', 'nowhere.invalid'])
      expect(await usageError({ PORT: '0', HOST: host })).toMatch(new RegExp(`^HOST "${host}" cannot be listened on`));
  });

  it('a bad BASE_URL', async () => {
    expect(await usageError({ PORT: '0', BASE_URL: 'localhost:3000' })).toMatch(/^BASE_URL must be an absolute http\(s\) address/);
  });
});

describe('two npm start on two ports', () => {
  const servers: ServerProcess[] = [];
  afterAll(() => Promise.all(servers.map((s) => s.stop())));

  it('each serves links to its own port, after both have built; an IPv6 host is printed in brackets', async () => {
    const ipv6 = await hasIpv6();
    servers.push(await npmStart({ HOST: '127.0.0.1' }));
    // The second builds while the first serves.
    servers.push(await npmStart({ HOST: ipv6 ? '::1' : '127.0.0.1' }));
    const [first, second] = servers as [ServerProcess, ServerProcess];
    expect(first.url).toMatch(/^http:\/\/localhost:\d+$/);
    if (ipv6) expect(second.url).toMatch(/^http:\/\/\[::1\]:\d+$/);
    expect(second.outDir).not.toBe(first.outDir);
    for (const server of servers) {
      const port = new URL(server.url).port;
      const fire = await (await fetch(`${server.url}/api/v2/type/fire/`)).json();
      expect(fire.generation.url, server.url).toBe(`http://localhost:${port}/api/v2/generation/1/`);
      const index = await (await fetch(`${server.url}/api/v2/`)).json();
      expect(index.type, server.url).toBe(`http://localhost:${port}/api/v2/type/`);
    }
  }, 240_000);
});
