// Entry of `npx hora`: one JSON object on stdout and exit 0, or a JSON object with `error` on
// stderr and a non-zero exit.
import { ConfigError, loadStoreConfig } from '../config.js';
import { SqliteStore } from '../store/sqlite.js';
import { CliError, runCommand } from './commands.js';

async function main(argv: string[]): Promise<number> {
  try {
    const { dataDir, keyPrefix } = loadStoreConfig(process.env);
    const store = await SqliteStore.open(dataDir);
    try {
      const out = await runCommand({ store, keyPrefix }, argv);
      process.stdout.write(`${JSON.stringify(out)}\n`);
      return 0;
    } finally {
      await store.close();
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
