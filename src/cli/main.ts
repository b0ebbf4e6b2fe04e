// Entry of `npx hora`: one JSON object on stdout and exit 0, or a JSON object with `error` on
// stderr and a non-zero exit.
import { loadStoreConfig } from '../config.js';
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
    const code = err instanceof CliError ? err.code : 'failed';
    const message = err instanceof Error ? err.message : String(err);
    process.stderr.write(`${JSON.stringify({ error: { code, message } })}\n`);
    return err instanceof CliError ? err.exitCode : 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
