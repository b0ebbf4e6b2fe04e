import { execFile, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { SqliteDb } from '../src/native.js';
import { digestKey } from '../src/store/keys.js';
import { DB_FILE_NAME } from '../src/store/sqlite.js';
import { tempDataDir } from './helpers/app.js';
import { testRoutes, TestControl, TEST_FORECAST } from './helpers/routes.js';

const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin', 'hora.js');

let dataDir: string;
beforeAll(() => {
  if (!existsSync(join(ROOT, 'dist', 'src', 'cli', 'main.js'))) throw new Error('build first: npm run build:ts');
  dataDir = tempDataDir();
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/**
 * Which of `needles` occur in the bytes kept on disk under the data directory: the database and
 * any journal beside it. Read by a child process: opening and closing those files in this process,
 * where a server may hold the database open, would drop that server's SQLite locks (POSIX locks
 * belong to the process) and leave it reading a stale snapshot.
 */
async function storedContains(...needles: string[]): Promise<boolean[]> {
  const script = `const fs = require('node:fs'), path = require('node:path');
    const [dir, ...needles] = process.argv.slice(1);
    const files = fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());
    const bytes = Buffer.concat(files.map((e) => fs.readFileSync(path.join(e.parentPath, e.name))));
    process.stdout.write(JSON.stringify(needles.map((n) => bytes.includes(n))));`;
  const { stdout } = await run(process.execPath, ['-e', script, dataDir, ...needles]);
  return JSON.parse(stdout) as boolean[];
}

/** Only the key's digest is on disk: neither the key nor its random part is. */
async function expectOnlyDigestStored(key: string) {
  const secret = key.slice(key.indexOf('_live_') + '_live_'.length);
  // The digest is found, so the search does see the stored key rows.
  expect(await storedContains(digestKey(key), key, secret)).toEqual([true, false, false]);
}

async function hora(...args: string[]): Promise<{ code: number; out: any; err: any }> {
  return horaIn(dataDir, ...args);
}

/** `npx hora ...args` against the store in `dir`: one JSON line on stdout, or one on stderr. */
async function horaIn(dir: string, ...args: string[]): Promise<{ code: number; out: any; err: any }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, HORA_DATA_DIR: dir } });
    expect(stderr).toBe('');
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    return { code: 0, out: JSON.parse(lines[0]!), err: null };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    expect(err.stdout).toBe('');
    return { code: err.code, out: null, err: JSON.parse(err.stderr.trim()) };
  }
}

describe('npx hora', () => {
  it('org create prints the org with its defaults', async () => {
    const r = await hora('org', 'create', 'acme', '--preset', 'strict', '--version', '2026-12');
    expect(r.code).toBe(0);
    expect(r.out).toMatchObject({ org: 'acme', preset: 'strict', version: '2026-12', suspended: false, pending_deletion: false });
  });

  it('creating an existing org or account could not be done: exit 1 with an error object on stderr', async () => {
    const r = await hora('org', 'create', 'acme');
    expect(r.code).toBe(1);
    expect(r.err.error).toMatchObject({ code: expect.any(String), message: expect.any(String) });
    expect((await hora('account', 'create', 'dup-acct', '--org', 'acme')).code).toBe(0);
    const again = await hora('account', 'create', 'dup-acct', '--org', 'acme');
    expect(again.code).toBe(1);
    expect(again.err.error.code).toBe(r.err.error.code);
  });

  it('org update changes flags and defaults', async () => {
    const r = await hora('org', 'update', 'acme', '--suspended', 'true', '--pending-deletion', 'false', '--preset', 'default');
    expect(r.out).toMatchObject({ org: 'acme', preset: 'default', suspended: true, pending_deletion: false });
    expect((await hora('org', 'update', 'acme', '--suspended', 'false')).out.suspended).toBe(false);
    expect((await hora('org', 'update', 'nope', '--suspended', 'true')).code).not.toBe(0);
  });

  it('account create and update', async () => {
    expect((await hora('account', 'create', 'acct', '--org', 'acme')).out).toMatchObject({ account: 'acct', org: 'acme', suspended: false });
    expect((await hora('account', 'update', 'acct', '--suspended', 'true')).out).toMatchObject({ account: 'acct', suspended: true });
    expect((await hora('account', 'update', 'acct', '--suspended', 'false')).out.suspended).toBe(false);
    expect((await hora('account', 'create', 'orphan', '--org', 'missing')).code).not.toBe(0);
    expect((await hora('account', 'create', 'noorg')).code).not.toBe(0);
  });

  it('key create shows the key once and stores only its digest', async () => {
    const r = await hora('key', 'create', '--account', 'acct', '--name', 'ci key', '--preset', 'raw');
    expect(r.out.key).toMatch(/^hora_live_[A-Za-z0-9_-]{43}$/);
    expect(r.out).toMatchObject({ account: 'acct', org: 'acme', name: 'ci key', scopes: ['forecast:write'], preset: 'raw' });
    expect(r.out.key_id).toMatch(/^key_/);
    await expectOnlyDigestStored(r.out.key);
    const noScopes = await hora('key', 'create', '--account', 'acct', '--name', 'none', '--scopes', '');
    expect(noScopes.out.scopes).toEqual([]);
    const two = await hora('key', 'create', '--account', 'acct', '--name', 'two', '--scopes', 'forecast:write,forecast:read');
    expect(two.out.scopes).toEqual(['forecast:write', 'forecast:read']);
    expect((await hora('key', 'create', '--account', 'acct', '--name', 'x'.repeat(65))).code).not.toBe(0);
    // 1 to 64 characters: an empty name is refused, a single character is enough.
    const empty = await hora('key', 'create', '--account', 'acct', '--name', '');
    expect(empty.code).not.toBe(0);
    expect(empty.err.error).toBeDefined();
    expect((await hora('key', 'create', '--account', 'acct', '--name', 'k')).out.name).toBe('k');
    // 64 characters, counted as characters: 64 emoji (128 UTF-16 units) fit, 65 do not.
    expect((await hora('key', 'create', '--account', 'acct', '--name', '😀'.repeat(64))).code).toBe(0);
    expect((await hora('key', 'create', '--account', 'acct', '--name', '😀'.repeat(65))).code).not.toBe(0);
    expect((await hora('key', 'create', '--account', 'ghost', '--name', 'k')).code).not.toBe(0);
    expect((await hora('key', 'create', '--account', 'acct', '--name', 'k', '--preset', 'fancy')).code).not.toBe(0);
  });

  it('endpoint pause and resume', async () => {
    expect((await hora('endpoint', 'pause', 'clean')).out).toEqual({ endpoint: 'clean', paused: true });
    expect((await hora('endpoint', 'resume', 'clean')).out).toEqual({ endpoint: 'clean', paused: false });
    expect((await hora('endpoint', 'pause', 'anomaly')).code).not.toBe(0);
  });

  it('usage prints billed points and request counts for a UTC day', async () => {
    const r = await hora('usage', 'acct', '--day', '2026-01-31');
    expect(r.out).toEqual({ account: 'acct', day: '2026-01-31', billed_points: 0, input_data_points: 0, forecast_data_points: 0, requests: { forecast: 0, clean: 0 } });
    expect((await hora('usage', 'acct', '--day', '2026-02-30')).code).not.toBe(0);
    expect((await hora('usage', 'ghost')).code).not.toBe(0);
  });

  it('a repeated option is a usage error (exit 2) and changes nothing', async () => {
    const r = await hora('account', 'update', 'acct', '--suspended', 'true', '--suspended', 'false');
    expect(r.code).toBe(2);
    expect(r.err.error).toMatchObject({ code: 'usage', message: expect.stringMatching(/--suspended given more than once/) });
    expect((await hora('account', 'update', 'acct')).out.suspended).toBe(false);
    expect((await hora('key', 'create', '--account', 'acct', '--name', 'a', '--name', 'b')).code).toBe(2);
  });

  it('a malformed value is exit 2 invalid_value even where the org or account it names does not exist', async () => {
    const cases = [
      ['account', 'create', 'okname', '--org', 'bad name'],
      ['org', 'update', 'bad name', '--suspended', 'true'],
      ['account', 'update', 'bad name', '--suspended', 'true'],
      ['usage', 'bad name'],
      ['key', 'create', '--account', 'ghost', '--name', 'n', '--preset', 'bogus'],
      ['key', 'create', '--account', 'ghost', '--name', 'n', '--scopes', 'a b'],
      ['key', 'create', '--account', 'bad name', '--name', 'n'],
      ['key', 'revoke', 'bad id!!'],
      ['key', 'revoke', ''],
    ];
    for (const args of cases) {
      const r = await hora(...args);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.err.error.code, args.join(' ')).toBe('invalid_value');
    }
    // Org and account names: 1 to 64 of letters, digits, `_ . @ -`, starting with a letter or digit.
    for (const name of ['_lead', '.dot', '@at', 'a'.repeat(65), 'a#b']) {
      const r = await hora('org', 'create', name);
      expect([r.code, r.err?.error.code], name).toEqual([2, 'invalid_value']);
    }
    for (const name of ['a'.repeat(64), '0a_b.c@d-e']) expect((await hora('org', 'create', name)).code, name).toBe(0);
    // A well-formed name that is not there is still "could not be done": exit 1.
    expect((await hora('key', 'create', '--account', 'ghost', '--name', 'n')).code).toBe(1);
    expect((await hora('key', 'revoke', 'key_0123456789abcdef')).code).toBe(1);
  });

  it('a store that cannot be opened is exit 1, one JSON error on stderr', async () => {
    const dir = tempDataDir();
    try {
      writeFileSync(join(dir, DB_FILE_NAME), 'this is not a database, it only has the name of one');
      const failed = await horaIn(dir, 'org', 'create', 'x');
      expect(failed.code).toBe(1);
      expect(failed.err.error.message).toEqual(expect.any(String));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('unknown commands and options fail with a JSON error', async () => {
    expect((await hora('launch')).err.error).toBeDefined();
    expect((await hora('org', 'create', 'x', '--colour', 'red')).code).not.toBe(0);
  });

  it('--help (anywhere) and no arguments print the usage as one JSON object, exit 0', async () => {
    for (const args of [['--help'], ['-h'], ['help'], ['org', 'create', '--help'], []]) {
      const r = await hora(...args);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.out.usage).toContain('hora org create ORG [--preset P] [--version V]');
    }
  });

  it('-h or --help as an option value is no help: a usage error, exit 2, and nothing is done', async () => {
    for (const flag of ['-h', '--help']) {
      const r = await hora('org', 'create', 'help-as-value', '--preset', flag);
      expect([r.code, r.err?.error?.code], flag).toEqual([2, 'usage']);
      expect((await hora('org', 'update', 'help-as-value', '--preset', 'strict')).code, 'the org was not created').toBe(1);
    }
    // After a complete option, it is help again.
    expect((await hora('org', 'create', 'help-as-value', '--preset', 'strict', '--help')).out.usage).toBeDefined();
    expect((await hora('org', 'update', 'help-as-value', '--preset', 'strict')).code).toBe(1);
  });

  it('help and a malformed command line are answered without opening or creating the store', async () => {
    const file = join(tempDataDir(), 'not-a-dir');
    writeFileSync(file, 'x');
    const fresh = join(tempDataDir(), 'never-made');
    for (const dir of [file, fresh]) {
      const env = { ...process.env, HORA_DATA_DIR: dir, HORA_KEY_PREFIX: 'a_b' };
      const help = await run(process.execPath, [BIN, '--help'], { cwd: ROOT, env });
      expect(JSON.parse(help.stdout).usage).toContain('hora key revoke KEY_ID');
      for (const args of [['bogus'], ['org', 'update', 'o1', '--suspended', 'maybe']]) {
        const failed = await run(process.execPath, [BIN, ...args], { cwd: ROOT, env }).catch((e) => e);
        expect(failed.code, args.join(' ')).toBe(2);
        expect(JSON.parse(failed.stderr).error.code).toMatch(/^(usage|invalid_value)$/);
        expect(JSON.parse(failed.stderr).error.message).not.toMatch(/HORA_/);
      }
    }
    expect(existsSync(fresh)).toBe(false);
  });

  it('a malformed HORA_* value is a malformed value: exit 2 with invalid_value', async () => {
    const failed = await run(process.execPath, [BIN, 'org', 'create', 'prefix-org'], { cwd: ROOT, env: { ...process.env, HORA_DATA_DIR: dataDir, HORA_KEY_PREFIX: 'a_b' } }).catch((e) => e);
    expect(failed.code).toBe(2);
    expect(JSON.parse(failed.stderr).error).toMatchObject({ code: 'invalid_value', message: expect.stringMatching(/HORA_KEY_PREFIX/) });
  });

  it('an answer that cannot be written is an error on stderr, and a key nobody saw is revoked', async () => {
    // stdout on a full disk: the command is done, but its answer is lost.
    const full = openSync('/dev/full', 'w');
    const lost = (...args: string[]) =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, HORA_DATA_DIR: dataDir }, stdio: ['ignore', full, 'pipe'] });
        let stderr = '';
        child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
        child.on('close', (code) => resolve({ code, stderr }));
      });
    try {
      const org = await lost('org', 'create', 'unseen-org');
      expect(org.code).toBe(1);
      expect(JSON.parse(org.stderr)).toEqual({ error: { code: 'failed', message: expect.stringMatching(/^the answer could not be written to stdout \(ENOSPC.*\); the command was done$/) } });
      expect((await hora('org', 'create', 'unseen-org')).err.error.code).toBe('conflict');
      // Help changes nothing, and says nothing was done.
      const help = await lost('--help');
      expect(help.code).toBe(1);
      expect(JSON.parse(help.stderr).error.message).toMatch(/^the answer could not be written to stdout \(ENOSPC[^)]*\)$/);
      await hora('account', 'create', 'unseen-acct', '--org', 'unseen-org');
      const key = await lost('key', 'create', '--account', 'unseen-acct', '--name', 'k');
      expect(key.code).toBe(1);
      const keyId = /the new key (key_[0-9a-f]+) was never shown, so it was revoked$/.exec(JSON.parse(key.stderr).error.message)?.[1];
      expect(keyId).toBeDefined();
      const db = new SqliteDb(join(dataDir, DB_FILE_NAME));
      try {
        expect(db.query('SELECT revoked FROM api_keys WHERE key_id = ?', [keyId])).toEqual([{ revoked: 1 }]);
      } finally {
        db.close();
      }
    } finally {
      closeSync(full);
    }
  });

  it('a database path that is a named pipe is refused at once, not waited on', async () => {
    // Found by audit: creating the file owner-only opened what was there, and a FIFO with no
    // reader blocked the CLI (and the server) for ever. A child process, so a hang is a timeout.
    const dir = tempDataDir();
    try {
      await run('mkfifo', [join(dir, DB_FILE_NAME)]);
      const failed = await run(process.execPath, [BIN, 'org', 'create', 'o'], { cwd: ROOT, env: { ...process.env, HORA_DATA_DIR: dir }, timeout: 10_000 }).catch((e) => e);
      expect(failed.killed).toBe(false);
      expect(failed.code).toBe(1);
      expect(JSON.parse(failed.stderr).error.message).toMatch(/could not be opened/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('`npx hora` run from the repository root resolves to this package bin', async () => {
    const { stdout } = await run('npx', ['--no-install', 'hora', 'endpoint', 'resume', 'forecast'], { cwd: ROOT, env: { ...process.env, HORA_DATA_DIR: dataDir } });
    expect(JSON.parse(stdout)).toEqual({ endpoint: 'forecast', paused: false });
    // npx starts a whole npm process: allow for a loaded machine.
  }, 120_000);
});

/** `npx hora` on `dir` with extra environment: its exit code and its one JSON object (stdout or stderr). */
function cliOn(dir: string) {
  return (env: Record<string, string>, ...args: string[]): Promise<{ code: number; out: any }> =>
    run(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, HORA_DATA_DIR: dir, ...env } }).then(
      (r) => ({ code: 0, out: JSON.parse(r.stdout) }),
      (e) => ({ code: e.code as number, out: JSON.parse(e.stderr) }),
    );
}

/** `cliOn(dir)` once org `o` and its account `a` exist there. */
async function cliWithAccount(dir: string) {
  const cli = cliOn(dir);
  await cli({}, 'org', 'create', 'o');
  await cli({}, 'account', 'create', 'a', '--org', 'o');
  return cli;
}

describe('the CLI mints keys with the prefix of the server on its HORA_DATA_DIR', () => {
  it('follows the prefix the server started with, and refuses a different HORA_KEY_PREFIX', async () => {
    const dir = tempDataDir();
    try {
      const cli = await cliWithAccount(dir);
      // Before any server start: HORA_KEY_PREFIX, else hora; the first key minted fixes it until a start.
      expect((await cli({}, 'key', 'create', '--account', 'a', '--name', 'k0')).out.key).toMatch(/^hora_live_/);
      const early = await cli({ HORA_KEY_PREFIX: 'acme' }, 'key', 'create', '--account', 'a', '--name', 'k0b');
      expect(early.code).toBe(2);
      expect(early.out.error.message).toMatch(/HORA_KEY_PREFIX is "acme" here, but the keys .* were minted as "hora" before any server start/);
      const warnings: string[] = [];
      const app = await buildApp(loadConfig({ HORA_DATA_DIR: dir, PORT: '0', HORA_KEY_PREFIX: 'acme' }), { logger: false, routes: testRoutes(new TestControl()) });
      try {
        app.log.warn = ((msg: string) => void warnings.push(msg)) as typeof app.log.warn;
        await app.listen({ host: '127.0.0.1', port: 0 });
        // The keys minted before this first start carry another prefix: the operator is told.
        expect(warnings).toEqual([expect.stringMatching(/HORA_KEY_PREFIX changed from "hora" to "acme"/)]);
        const minted = await cli({}, 'key', 'create', '--account', 'a', '--name', 'k1');
        expect(minted.out.key).toMatch(/^acme_live_/);
        const res = await app.inject({ method: 'POST', url: TEST_FORECAST, headers: { 'content-type': 'application/json', authorization: `Bearer ${minted.out.key}` }, payload: '{}' });
        expect(res.statusCode).toBe(200);
        expect((await cli({ HORA_KEY_PREFIX: 'acme' }, 'key', 'create', '--account', 'a', '--name', 'k2')).out.key).toMatch(/^acme_live_/);
        const refused = await cli({ HORA_KEY_PREFIX: 'other' }, 'key', 'create', '--account', 'a', '--name', 'k3');
        expect(refused.code).toBe(2);
        expect(refused.out.error.message).toMatch(/HORA_KEY_PREFIX is "other" here, but the server .* serves "acme"/);
        // Commands that mint nothing do not care.
        expect((await cli({ HORA_KEY_PREFIX: 'other' }, 'endpoint', 'resume', 'clean')).code).toBe(0);
      } finally {
        await app.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** Starts a server on `dir` with `prefix`, stops it, and returns what it warned at start. */
async function startAndStop(dir: string, prefix: string): Promise<string[]> {
  const warnings: string[] = [];
  const app = await buildApp(loadConfig({ HORA_DATA_DIR: dir, PORT: '0', HORA_KEY_PREFIX: prefix }), { logger: false, routes: testRoutes(new TestControl()) });
  app.log.warn = ((msg: string) => void warnings.push(msg)) as typeof app.log.warn;
  await app.listen({ host: '127.0.0.1', port: 0 });
  await app.close();
  return warnings;
}

describe('the prefix of keys minted before the first start', () => {
  it('a first mint with HORA_KEY_PREFIX fixes it for later mints without the variable, and a restart with the served prefix does not warn', async () => {
    const dir = tempDataDir();
    try {
      const cli = await cliWithAccount(dir);
      expect((await cli({ HORA_KEY_PREFIX: 'acme' }, 'key', 'create', '--account', 'a', '--name', 'k0')).out.key).toMatch(/^acme_live_/);
      // Unset here: the prefix the store's keys carry, not the default.
      const plain = await cli({ HORA_KEY_PREFIX: '' }, 'key', 'create', '--account', 'a', '--name', 'k1');
      expect([plain.code, plain.out.key]).toEqual([0, expect.stringMatching(/^acme_live_/)]);
      // The first start changed the prefix from the minted one; the restart with the same prefix did not.
      expect(await startAndStop(dir, 'other')).toEqual([expect.stringMatching(/HORA_KEY_PREFIX changed from "acme" to "other"/)]);
      expect(await startAndStop(dir, 'other')).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the first server start on a new data directory', () => {
  it('records its key prefix without a warning: no keys were issued before it', async () => {
    const dir = tempDataDir();
    try {
      expect(await startAndStop(dir, 'acme')).toEqual([]);
      // The CLI then mints with the served prefix.
      const cli = await cliWithAccount(dir);
      expect((await cli({}, 'key', 'create', '--account', 'a', '--name', 'k')).out.key).toMatch(/^acme_live_/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('two first key mints at once, before any server start', () => {
  it('never mint keys with two prefixes: the one that loses uses the winner prefix or is refused', async () => {
    for (let round = 0; round < 3; round++) {
      const dir = tempDataDir();
      try {
        const cli = (env: Record<string, string>, ...args: string[]) =>
          run(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, HORA_DATA_DIR: dir, ...env } }).then(
            (r) => JSON.parse(r.stdout) as { key: string },
            () => null,
          );
        await cli({}, 'org', 'create', 'o');
        await cli({}, 'account', 'create', 'a', '--org', 'o');
        const minted = await Promise.all([cli({ HORA_KEY_PREFIX: 'acme' }, 'key', 'create', '--account', 'a', '--name', 'k1'), cli({}, 'key', 'create', '--account', 'a', '--name', 'k2')]);
        const prefixes = new Set(minted.filter((m) => m !== null).map((m) => m!.key.split('_live_')[0]));
        expect(prefixes.size, JSON.stringify(minted)).toBe(1);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }
  }, 60_000);
});

describe('a server start that fails leaves the recorded key prefix alone', () => {
  it('a second server whose port is taken does not retag the keys the CLI mints', async () => {
    const dir = tempDataDir();
    const running = await buildApp(loadConfig({ HORA_DATA_DIR: dir, PORT: '0' }), { logger: false });
    const failing = await buildApp(loadConfig({ HORA_DATA_DIR: dir, PORT: '0', HORA_KEY_PREFIX: 'zz' }), { logger: false });
    try {
      await running.listen({ host: '127.0.0.1', port: 0 });
      const addr = running.server.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      await expect(failing.listen({ host: '127.0.0.1', port })).rejects.toThrow(/EADDRINUSE/);
      const { stdout } = await run(process.execPath, [BIN, 'org', 'create', 'o'], { cwd: ROOT, env: { ...process.env, HORA_DATA_DIR: dir } });
      expect(JSON.parse(stdout).org).toBe('o');
      await run(process.execPath, [BIN, 'account', 'create', 'a', '--org', 'o'], { cwd: ROOT, env: { ...process.env, HORA_DATA_DIR: dir } });
      const key = await run(process.execPath, [BIN, 'key', 'create', '--account', 'a', '--name', 'k'], { cwd: ROOT, env: { ...process.env, HORA_DATA_DIR: dir } });
      expect(JSON.parse(key.stdout).key).toMatch(/^hora_live_/);
    } finally {
      await failing.close();
      await running.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('a running server sees operator changes within one second', () => {
  let app: FastifyInstance;
  let base: string;
  let key: string;
  let keyId: string;

  beforeAll(async () => {
    app = await buildApp(loadConfig({ HORA_DATA_DIR: dataDir, PORT: '0' }), { logger: false, routes: testRoutes(new TestControl()) });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const addr = app.server.address();
    base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
    const created = await hora('key', 'create', '--account', 'acct', '--name', 'live');
    key = created.out.key;
    keyId = created.out.key_id;
  });
  afterAll(async () => app.close());

  const call = () => fetch(base + TEST_FORECAST, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: '{}' });

  it('the key digest, not the key, is what the store holds', async () => {
    const found = await app.store.findKeyByDigest(digestKey(key));
    expect(found?.key.keyId).toBe(keyId);
    // Used by a running server too: nothing it wrote (the database, its journal) holds the key.
    expect((await call()).status).toBe(200);
    await expectOnlyDigestStored(key);
  });

  it('pause, suspension and revocation made by the CLI apply to the next request', async () => {
    expect((await call()).status).toBe(200);
    await hora('endpoint', 'pause', 'forecast');
    expect((await call()).status).toBe(503);
    await hora('endpoint', 'resume', 'forecast');
    await hora('account', 'update', 'acct', '--suspended', 'true');
    expect((await call()).status).toBe(403);
    await hora('account', 'update', 'acct', '--suspended', 'false');
    expect((await call()).status).toBe(200);
    expect((await hora('key', 'revoke', keyId)).out).toEqual({ key_id: keyId, revoked: true });
    expect((await call()).status).toBe(401);
    expect((await hora('key', 'revoke', keyId)).out).toEqual({ key_id: keyId, revoked: true });
  });
});

describe('npx hora in a checkout', () => {
  // `npx hora` installs the checkout into npm's npx cache and runs its `prepare` under
  // npm_command=exec; the build must not run again then (scripts/prepare.mjs). With no PATH, a
  // build attempt cannot find npm and fails, so the exit status tells whether one was tried.
  const prepare = (npmCommand: string) =>
    run(process.execPath, [join(ROOT, 'scripts', 'prepare.mjs')], { cwd: ROOT, env: { npm_command: npmCommand, PATH: '' } }).then(
      () => 'no build',
      () => 'build tried',
    );

  it('prepare builds under npm ci and install, and does nothing under npm exec', async () => {
    expect(await prepare('exec')).toBe('no build');
    expect(await prepare('ci')).toBe('build tried');
    expect(await prepare('install')).toBe('build tried');
  });
});
