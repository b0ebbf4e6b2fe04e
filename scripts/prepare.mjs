// `npm ci` and `npm install` build the addon and the TypeScript here (the `prepare` lifecycle).
// `npx hora` in a checkout installs that checkout into npm's npx cache and runs `prepare` again,
// under `npm_command=exec`: a silent rebuild on the operator's first command, and an interrupted one
// leaves a cache entry that breaks every later `npx hora`. The checkout is built already by then,
// so under `npm exec` there is nothing to do.
import { spawnSync } from 'node:child_process';

if (process.env.npm_command !== 'exec') {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const { status, error } = spawnSync(npm, ['run', 'build'], { stdio: 'inherit' });
  if (error) throw error;
  process.exit(status ?? 1);
}
