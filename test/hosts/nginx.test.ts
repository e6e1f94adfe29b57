// nginx (Debian's package) with hosts/nginx.conf included, unchanged, in a server block on a
// loopback port, run in the foreground with its own temp prefix, pid and logs.
import fs from 'node:fs/promises';
import path from 'node:path';
import { describeHost, site } from './behaviour.ts';
import { cannotRun, freePort, unavailable } from './processes.ts';
import { hostFiles } from './site.ts';

const NGINX = process.env.NGINX ?? '/usr/sbin/nginx';
const reason = unavailable('nginx', cannotRun(NGINX, ['-v']), 'apt-get install -y nginx');

describeHost('nginx (hosts/nginx.conf)', reason, async () => {
  const { root, dist } = site();
  // nginx's workers run as an unprivileged user: the temp folders must be readable to them.
  await fs.chmod(root, 0o755);
  const prefix = await fs.mkdtemp(path.join(root, 'nginx-'));
  const port = await freePort();
  const conf = path.join(prefix, 'nginx.conf');
  await fs.writeFile(conf, mainConf(prefix, port, dist));
  return {
    command: NGINX,
    args: ['-p', prefix, '-c', conf],
    cwd: prefix,
    url: `http://127.0.0.1:${port}`,
    timeoutMs: 30_000,
  };
});

function mainConf(prefix: string, port: number, dist: string): string {
  const temp = (name: string) => `${name}_temp_path ${path.join(prefix, name)};`;
  return `daemon off;
worker_processes 1;
pid ${path.join(prefix, 'nginx.pid')};
error_log ${path.join(prefix, 'error.log')} warn;
events { worker_connections 256; }
http {
  include /etc/nginx/mime.types;
  access_log off;
  ${['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map(temp).join('\n  ')}
  server {
    listen 127.0.0.1:${port};
    root ${dist};
    include ${hostFiles.nginxConf};
  }
}
`;
}
