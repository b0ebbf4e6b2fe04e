// `npm run eval`: hora-1.0 scored through the running service over HTTP. Starts the server (as
// `npm start` would, on a temporary data directory with one tenant made through the operator
// CLI), runs model/eval.py against it with that tenant's key, and stops the server. Arguments
// after `--` go to eval.py (`npm run eval -- --sets weekly --no-baselines`).
//
// With HORA_EVAL_SERVICE and HORA_EVAL_KEY set, eval.py uses that service instead and nothing is
// started. HORA_EVAL_PYTHON names the interpreter (default: model/.venv/bin/python, which
// model/setup.sh creates).
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { startServer } from '../bench/server.js';
import { packageRoot } from '../src/native.js';

const python = process.env.HORA_EVAL_PYTHON ?? join(packageRoot, 'model/.venv/bin/python');
const args = process.argv.slice(2);

function run(env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [join(packageRoot, 'model/eval.py'), ...args], { stdio: 'inherit', env, cwd: packageRoot });
    child.once('error', reject);
    child.once('exit', (code) => resolve(code ?? 1));
  });
}

let code: number;
if (process.env.HORA_EVAL_SERVICE && process.env.HORA_EVAL_KEY) {
  code = await run(process.env);
} else {
  const server = await startServer();
  try {
    process.stderr.write(`eval: hora-1.0 through ${server.url} (a server started for this run)\n`);
    code = await run({ ...process.env, HORA_EVAL_SERVICE: server.url, HORA_EVAL_KEY: server.key });
  } finally {
    await server.stop();
  }
}
process.exit(code);
