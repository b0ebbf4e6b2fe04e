// A real listening server in a child process (so the load and the server do not share one event
// loop), on a temporary data directory with one tenant created through the operator CLI.
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from '../src/cli/commands.js';
import { loadStoreConfig } from '../src/config.js';
import { packageRoot } from '../src/native.js';
import { SqliteStore } from '../src/store/sqlite.js';

export interface BenchServer {
  url: string;
  key: string;
  stop(): Promise<void>;
}

export async function startServer(env: Record<string, string> = {}): Promise<BenchServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hora-bench-'));
  const store = await SqliteStore.open(dataDir);
  // The key must carry the prefix the server will run with (HORA_KEY_PREFIX may be set).
  const { keyPrefix } = loadStoreConfig({ ...process.env, ...env });
  const cli = (...argv: string[]) => runCommand({ store: async () => store, keyPrefix: () => keyPrefix }, argv);
  await cli('org', 'create', 'bench');
  await cli('account', 'create', 'bench', '--org', 'bench');
  const key = String((await cli('key', 'create', '--account', 'bench', '--name', 'bench')).key);
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child: ChildProcess = spawn(process.execPath, [join(packageRoot, 'dist/src/server.js')], {
    env: { ...process.env, HORA_DATA_DIR: dataDir, PORT: String(port), HORA_FORECAST_RPM: '1000000', HORA_CLEAN_RPM: '1000000', HORA_DAILY_POINTS: '1000000000000', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      await fetch(`${url}/openapi.json`);
      break;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return {
    url,
    key,
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** `Server-Timing` header -> {stage: ms}. */
export function stageTimes(header: string | null): Record<string, number> {
  const out: Record<string, number> = {};
  for (const part of (header ?? '').split(',')) {
    const m = /^\s*([\w-]+);dur=([\d.]+)/.exec(part);
    if (m) out[m[1]] = Number(m[2]);
  }
  return out;
}

/** Table rows for the Server-Timing stages; `total` is the whole time in the server. */
export function stageRows(stages: Record<string, number[]>): string[] {
  return Object.entries(stages).map(([k, v]) =>
    k === 'total' ? `| in the server: first byte read to response handed over | ${median(v).toFixed(1)} ms |` : `| server stage: ${k} | ${median(v).toFixed(1)} ms |`,
  );
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * A POST of `body` to `path` that must answer 200, collecting each request's Server-Timing stages
 * into `stages` (reset them after the correctness check so only timed runs count). It resolves
 * with the response bytes once the last one has arrived; decoding them is the caller's business.
 *
 * The client is Node's own http module on one kept-alive connection, with the body encoded once:
 * what a client sending many requests does. (fetch added 5 to 8 ms of client work per request
 * on this machine, which says nothing about the service.)
 */
export function timedPost(server: BenchServer, path: string, body: string, stages: Record<string, number[]>): () => Promise<Buffer> {
  const bytes = Buffer.from(body);
  const { hostname, port } = new URL(server.url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const headers = { authorization: `Bearer ${server.key}`, 'content-type': 'application/json', 'content-length': bytes.length };
  return () =>
    new Promise((resolve, reject) => {
      const req = http.request({ host: hostname, port, path, method: 'POST', agent, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const bytes = Buffer.concat(chunks);
          if (res.statusCode !== 200) return reject(new Error(`${path} answered ${res.statusCode}: ${bytes.toString('utf8', 0, 300)}`));
          const timing = res.headers['server-timing'];
          for (const [k, v] of Object.entries(stageTimes(typeof timing === 'string' ? timing : null))) (stages[k] ??= []).push(v);
          resolve(bytes);
        });
      });
      req.on('error', reject);
      req.end(bytes);
    });
}
