// Entry of `npx hora`: one JSON object on stdout and exit 0, or a JSON object with `error` on
// stderr and a non-zero exit.
import { ConfigError, loadStoreConfig } from '../config.js';
import { SqliteStore } from '../store/sqlite.js';
import { changesState, CliError, runCommand } from './commands.js';

/**
 * The prefix new keys get: the one the server last started with on this HORA_DATA_DIR, so that
 * its keys are accepted; before any start, that of the keys minted so far, else HORA_KEY_PREFIX
 * (or `hora`), recorded so that a server started with another prefix warns. A HORA_KEY_PREFIX
 * set here that differs from the prefix in use is refused when a key is minted, not silently used.
 */
async function mintingPrefix(store: SqliteStore, configured: string, setHere: boolean, dataDir: string): Promise<() => Promise<string>> {
  const served = await store.servedKeyPrefix();
  return async () => {
    if (served !== null && setHere && configured !== served) {
      throw new CliError('invalid_value', `HORA_KEY_PREFIX is "${configured}" here, but the server on HORA_DATA_DIR=${dataDir} serves "${served}": its keys would be refused. Unset HORA_KEY_PREFIX or restart the server with it.`);
    }
    if (served !== null) return served;
    // Recorded and read back in one transaction: of two concurrent first mints, both use the winner's.
    const minted = await store.recordMintedKeyPrefix(configured);
    if (setHere && configured !== minted) {
      throw new CliError('invalid_value', `HORA_KEY_PREFIX is "${configured}" here, but the keys on HORA_DATA_DIR=${dataDir} were minted as "${minted}" before any server start. Unset HORA_KEY_PREFIX, or start the server with the prefix it will use first.`);
    }
    return minted;
  };
}

/** Writes the answer and waits until it is handed over: a full disk or a closed pipe is an error
 * the command must report, not an unhandled stream error with a stack trace. */
function writeOut(text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    // The stream reports a failed write twice, to the callback and then as an 'error' event: the
    // listener stays for that event, else it would be unhandled.
    process.stdout.once('error', reject);
    process.stdout.write(text, (err) => {
      if (err) return reject(err);
      process.stdout.off('error', reject);
      resolve();
    });
  });
}

/**
 * The failure of an answer that could not be written, after the command ran. A key is shown only
 * in that answer, so a key nobody saw is revoked rather than left live; any other change stays,
 * and the message says so, since a retry would find it done (help and `usage` change nothing).
 */
async function unseen(out: object, err: unknown, opened: Promise<{ store: SqliteStore }> | undefined, changed: boolean): Promise<Error> {
  const lost = `the answer could not be written to stdout (${err instanceof Error ? err.message : String(err)})`;
  if ('key' in out && 'key_id' in out && opened) {
    const keyId = String(out.key_id);
    try {
      await (await opened).store.revokeKey(keyId);
    } catch (revoking) {
      // A full disk can refuse the revocation too: the operator must learn which key is live.
      const why = revoking instanceof Error ? revoking.message : String(revoking);
      return new Error(`${lost}; the new key ${keyId} was never shown and could not be revoked (${why}): revoke it with \`hora key revoke ${keyId}\``);
    }
    return new Error(`${lost}; the new key ${keyId} was never shown, so it was revoked`);
  }
  return new Error(changed ? `${lost}; the command was done` : lost);
}

async function main(argv: string[]): Promise<number> {
  const session: { opened?: Promise<{ store: SqliteStore; keyPrefix: () => Promise<string> }> } = {};
  // The environment is read and the store opened only when a command needs them (after its
  // command line was checked): `hora --help` works without a usable HORA_DATA_DIR.
  const open = () =>
    (session.opened ??= (async () => {
      const { dataDir, keyPrefix: configured } = loadStoreConfig(process.env);
      const store = await SqliteStore.open(dataDir);
      try {
        return { store, keyPrefix: await mintingPrefix(store, configured, Boolean(process.env.HORA_KEY_PREFIX?.trim()), dataDir) };
      } catch (err) {
        await store.close();
        throw err;
      }
    })());
  try {
    try {
      const out = await runCommand({ store: async () => (await open()).store, keyPrefix: async () => (await open()).keyPrefix() }, argv);
      try {
        await writeOut(`${JSON.stringify(out)}\n`);
      } catch (err) {
        throw await unseen(out, err, session.opened, changesState(argv));
      }
      return 0;
    } finally {
      await (await session.opened?.catch(() => undefined))?.store.close();
    }
  } catch (err) {
    // A malformed HORA_* value is a malformed value, like a bad option: exit 2.
    const cli = err instanceof ConfigError ? new CliError('invalid_value', err.message) : err;
    const code = cli instanceof CliError ? cli.code : 'failed';
    const message = cli instanceof Error ? cli.message : String(cli);
    process.stderr.write(`${JSON.stringify({ error: { code, message } })}\n`);
    return cli instanceof CliError ? cli.exitCode : 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
