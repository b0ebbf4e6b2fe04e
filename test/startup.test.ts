// Start-up refusals of the built server (`node dist/src/server.js`, what `npm start` runs after
// its thread-pool preload): one sentence on stderr naming what is wrong, exit 1, never a stack
// trace; `npm start` and signals; the preload's pool size.
import { execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadFailure, modelPath, onnxRuntimePath } from '../src/native.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SERVER = join(ROOT, 'dist', 'src', 'server.js');
const dir = mkdtempSync(join(tmpdir(), 'hora-startup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the server with `env`; it must exit by itself (every case here refuses to start). */
function start(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [SERVER], { env: { ...process.env, HORA_DATA_DIR: join(dir, 'data'), PORT: '0', ...env }, timeout: 30_000 }, (err, _stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stderr }),
    );
  });
}

function expectOneSentence(r: { code: number | null; stderr: string }, pattern: RegExp): void {
  expect(r.code).toBe(1);
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^hora: /);
  expect(lines[0]).toMatch(pattern);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

describe('the server refuses to start with one sentence', () => {
  it('when the model file is missing, empty or not ONNX', async () => {
    expectOneSentence(await start({ HORA_MODEL_PATH: join(dir, 'absent.onnx') }), /absent\.onnx does not exist\.$/);
    writeFileSync(join(dir, 'empty.onnx'), '');
    expectOneSentence(await start({ HORA_MODEL_PATH: join(dir, 'empty.onnx') }), /empty\.onnx could not be loaded: .*\.$/);
    // ONNX Runtime's C++ source location and function signature are not part of the sentence.
    expect((await start({ HORA_MODEL_PATH: join(dir, 'empty.onnx') })).stderr).not.toMatch(/\.cc:\d|onnxruntime::|Load model from/);
    writeFileSync(join(dir, 'text.onnx'), 'not a model\n');
    expectOneSentence(await start({ HORA_MODEL_PATH: join(dir, 'text.onnx') }), /text\.onnx could not be loaded: .*\.$/);
  });

  it('naming HORA_MODEL_PATH or ORT_DYLIB_PATH when the path that failed came from it; a blank one is unset', async () => {
    expectOneSentence(await start({ HORA_MODEL_PATH: join(dir, 'absent.onnx') }), /^hora: HORA_MODEL_PATH: The model file .*absent\.onnx does not exist\.$/);
    expectOneSentence(await start({ ORT_DYLIB_PATH: join(dir, 'absent.so') }), /^hora: ORT_DYLIB_PATH: The ONNX Runtime library was not found at .*absent\.so\.$/);
    // A blank value means the default, as a blank HORA_DATA_DIR does.
    expect(modelPath({ HORA_MODEL_PATH: ' ' })).toBe(modelPath({}));
    expect(onnxRuntimePath({ ORT_DYLIB_PATH: ' \t' })).toBe(onnxRuntimePath({}));
  });

  it('naming the variable from what failed, not from the sentence; a missing default runtime says how to get one', () => {
    const runtime = { part: 'runtime', missing: true, message: 'The ONNX Runtime library was not found at /x/libonnxruntime.so.' } as const;
    expect(loadFailure(runtime, {})).toBe('The ONNX Runtime library was not found at /x/libonnxruntime.so; run `npm ci` or set ORT_DYLIB_PATH.');
    expect(loadFailure(runtime, { ORT_DYLIB_PATH: '/x/libonnxruntime.so' })).toBe(`ORT_DYLIB_PATH: ${runtime.message}`);
    // A runtime that is there but unusable: npm ci would not help.
    const broken = { part: 'runtime', missing: false, message: 'The ONNX Runtime library at /x/lib.so could not be loaded: bad ELF.' } as const;
    expect(loadFailure(broken, {})).toBe(broken.message);
    const model = { part: 'model', missing: true, message: 'The model file /m/a.onnx does not exist.' } as const;
    expect(loadFailure(model, {})).toBe(model.message);
    expect(loadFailure(model, { HORA_MODEL_PATH: '/m/a.onnx', ORT_DYLIB_PATH: '/x/lib.so' })).toBe(`HORA_MODEL_PATH: ${model.message}`);
  });

  it('when the model path is a directory', async () => {
    mkdirSync(join(dir, 'dir.onnx'));
    expectOneSentence(await start({ HORA_MODEL_PATH: join(dir, 'dir.onnx') }), /dir\.onnx is not a regular file\.$/);
  });

  /** The committed model with one metadata value replaced by another of the same length. */
  function alteredModel(name: string, key: string, from: string, to: string): string {
    const bytes = readFileSync(join(ROOT, 'models', 'hora-1.0.onnx'));
    const at = bytes.indexOf(from, bytes.indexOf(key) + key.length);
    expect(at).toBeGreaterThan(0);
    bytes.write(to, at);
    const path = join(dir, name);
    writeFileSync(path, bytes);
    return path;
  }

  it("when the model file loads but does not run, without the runtime's own log line or C++ locations", async () => {
    // Patches of 16 where the graph reshapes by 32: the start-up run fails inside the graph.
    const r = await start({ HORA_MODEL_PATH: alteredModel('cm16.onnx', 'hora.context_multiple', '32', '16') });
    expectOneSentence(r, /cm16\.onnx does not run: .*Reshape.*\.$/);
    expect(r.stderr).not.toMatch(/\.cc:\d|\.h:\d|onnxruntime::|\x1b\[/);
  });

  it('when the native quantiles are not symmetric around 0.5 (flip averaging pairs them)', async () => {
    const path = alteredModel('asym.onnx', 'hora.quantiles', '0.01', '0.02');
    expectOneSentence(await start({ HORA_MODEL_PATH: path }), /asym\.onnx is not a Hora model: .*hora\.quantiles must be symmetric around 0\.5\.$/);
  });

  it('when HORA_LOG_LEVEL is not a log level', async () => {
    expectOneSentence(await start({ HORA_LOG_LEVEL: 'bogus' }), /HORA_LOG_LEVEL must be one of .*"bogus"/);
  });

  it('when the port is taken', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      expectOneSentence(await start({ HOST: '127.0.0.1', PORT: String(port) }), new RegExp(`could not listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`));
    } finally {
      taken.close();
    }
  });

  it('when HORA_DATA_DIR is a file', async () => {
    writeFileSync(join(dir, 'a-file'), '');
    expectOneSentence(await start({ HORA_DATA_DIR: join(dir, 'a-file') }), /HORA_DATA_DIR=.*a-file could not be opened/);
    expectOneSentence(await start({ HORA_DATA_DIR: join(dir, 'a-file', 'below') }), /HORA_DATA_DIR=.*below could not be opened: .*not a directory/);
  });

  // Node's recursive mkdirSync loops forever on such a path; the store creates one level at a time.
  it.runIf(existsSync('/proc/self'))('when HORA_DATA_DIR cannot be created (under /proc)', async () => {
    expectOneSentence(await start({ HORA_DATA_DIR: '/proc/hora-nope/data' }), /HORA_DATA_DIR=\/proc\/hora-nope\/data could not be opened: .*ENOENT/);
  });
});

/** Spawns a server (`cmd args`) and waits until it logs the port it listens on. */
async function serving(cmd: string, args: string[], env: Record<string, string>) {
  const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, HOST: '127.0.0.1', PORT: '0', ...env } });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const out = { log: '' };
  child.stdout.on('data', (d: Buffer) => (out.log += d.toString()));
  const port = await new Promise<number>((resolve) => {
    const look = () => {
      const m = /listening at http:\/\/127\.0\.0\.1:(\d+)/.exec(out.log);
      if (m) resolve(Number(m[1]));
      else setTimeout(look, 20);
    };
    look();
  });
  return { child, exited, port, out };
}

describe('the built server on SIGTERM', () => {
  it('a second signal during the shutdown changes nothing: the request in flight is answered and the exit is 0', async () => {
    const data = join(dir, 'signals');
    const cli = (...args: string[]) =>
      new Promise<string>((resolve, reject) =>
        execFile(process.execPath, [join(ROOT, 'bin', 'hora.js'), ...args], { env: { ...process.env, HORA_DATA_DIR: data } }, (err, stdout) => (err ? reject(err) : resolve(stdout))),
      );
    await cli('org', 'create', 'o');
    await cli('account', 'create', 'a', '--org', 'o');
    const key = JSON.parse(await cli('key', 'create', '--account', 'a', '--name', 'k')).key as string;
    const { child, exited, port, out } = await serving(process.execPath, [SERVER], { HORA_DATA_DIR: data });
    // A request in flight: its body is still arriving when the signals come.
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
    socket.on('error', () => {});
    const body = '{"series": 1}'.padEnd(100, ' ');
    socket.write(`POST /v1/forecast HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`);
    await new Promise((r) => setTimeout(r, 200));
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 200));
    child.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 200));
    socket.write(body.slice(10));
    expect(await exited).toEqual({ code: 0, signal: null });
    expect(received).toMatch(/^HTTP\/1\.1 422 /);
    expect(received.toLowerCase()).toContain('connection: close');
    expect(out.log).toContain('SIGTERM during shutdown');
  }, 60_000);

  // npm runs a script through `sh -c` and signals only that shell: without `exec` the server was
  // left running, orphaned, while npm reported a kill.
  it('npm start, the documented command, passes SIGTERM to the server: npm exits 0 and the port is closed', async () => {
    const npm = process.env.npm_execpath;
    const [cmd, args] = npm ? [process.execPath, [npm, 'start']] : ['npm', ['start']];
    const { child, exited, port, out } = await serving(cmd, args, { HORA_DATA_DIR: join(dir, 'npm-start') });
    child.kill('SIGTERM');
    expect(await exited).toEqual({ code: 0, signal: null });
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.on('connect', () => (socket.destroy(), resolve(false)));
      socket.on('error', () => resolve(true));
    });
    expect(refused, out.log).toBe(true);
  }, 60_000);
});

describe("npm start sizes Node's thread pool (scripts/threadpool.cjs)", () => {
  const PRELOAD = join(ROOT, 'scripts', 'threadpool.cjs');

  it('to the cleaning capacity plus the cores, at least 4 and at most 1024', async () => {
    const { threadPoolSize } = (await import(PRELOAD)) as { threadPoolSize: (env: Record<string, string>, cores: number) => number };
    expect(threadPoolSize({}, 2)).toBe(4);
    expect(threadPoolSize({}, 8)).toBe(16);
    expect(threadPoolSize({ HORA_CLEAN_CAPACITY: '3' }, 8)).toBe(11);
    expect(threadPoolSize({ HORA_CLEAN_CAPACITY: ' ' }, 8)).toBe(16);
    expect(threadPoolSize({ HORA_CLEAN_CAPACITY: '5000' }, 8)).toBe(1024);
  });

  it('before the first module is read, so the pool really has that many threads; an operator value is kept', async () => {
    // Four reads that wait for a writer hold four pool threads; a fifth call still runs only
    // when the pool has more than four.
    const fifos = [1, 2, 3, 4].map((i) => join(dir, `pool-${i}`));
    await new Promise((resolve, reject) => execFile('mkfifo', fifos, (err) => (err ? reject(err) : resolve(null))));
    const probe = `import { open, stat } from 'node:fs/promises';
      for (const f of ${JSON.stringify(fifos)}) open(f, 'r').catch(() => {});
      const late = setTimeout(() => console.log(process.env.UV_THREADPOOL_SIZE, 'blocked'), 1000);
      await stat(${JSON.stringify(ROOT)});
      clearTimeout(late);
      console.log(process.env.UV_THREADPOOL_SIZE, 'ran');`;
    const run = (env: Record<string, string>) =>
      new Promise<string>((resolve) => {
        const child = spawn(process.execPath, ['--require', PRELOAD, '--input-type=module', '-e', probe], { env: { ...process.env, ...env } });
        let out = '';
        let released = false;
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          // Release the held reads once, so the child can exit (a write with no reader left
          // would hold one of this process's own pool threads).
          if (out.includes('\n') && !released) {
            released = true;
            for (const f of fifos) writeFile(f, 'x').catch(() => {});
          }
        });
        child.on('close', () => resolve(out.split('\n')[0]));
      });
    expect(await run({ HORA_CLEAN_CAPACITY: '6', UV_THREADPOOL_SIZE: '' })).toMatch(/^\d+ ran$/);
    expect(await run({ UV_THREADPOOL_SIZE: '4' })).toBe('4 blocked');
  }, 30_000);
});
