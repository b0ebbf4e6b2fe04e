// The operator commands of `npx hora` (operator-interface.md). Each returns the one JSON object
// printed on stdout, or throws CliError.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { generateKey, KEY_ID_PATTERN, REQUIRED_SCOPE } from '../store/keys.js';
import { POLICY_VERSIONS, PRESETS, type PolicyVersion, type Preset } from '../policy/table.js';
import {
  ENDPOINTS,
  StoreConflictError,
  StoreNotFoundError,
  type AccountRecord,
  type Endpoint,
  type KeyRecord,
  type OrgRecord,
  type Store,
} from '../store/store.js';

export class CliError extends Error {
  constructor(
    readonly code: 'usage' | 'not_found' | 'conflict' | 'invalid_value',
    message: string,
  ) {
    super(message);
    this.name = 'CliError';
  }
  /** 2 for a malformed command line, 1 for a command that could not be done. */
  get exitCode(): number {
    return this.code === 'usage' || this.code === 'invalid_value' ? 2 : 1;
  }
}

export interface CliContext {
  /** The store, opened on first use: after the command line is checked, so help and a malformed
   * command never touch (or create) the data directory. */
  store: () => Promise<Store>;
  /** The prefix of a key minted now; throws a CliError when it cannot be told (src/cli/main.ts). */
  keyPrefix: () => string | Promise<string>;
  now?: () => Date;
}

type Json = Record<string, unknown>;
type Values = Record<string, string | boolean | undefined>;

export const USAGE = [
  'hora org create ORG [--preset P] [--version V]',
  'hora org update ORG [--preset P] [--version V] [--suspended true|false] [--pending-deletion true|false]',
  'hora account create ACCOUNT --org ORG',
  'hora account update ACCOUNT [--suspended true|false]',
  'hora key create --account ACCOUNT --name NAME [--scopes S1,S2] [--preset P] [--version V]',
  'hora key revoke KEY_ID',
  'hora endpoint pause|resume forecast|clean',
  'hora usage ACCOUNT [--day YYYY-MM-DD]',
];

const NAME_RE = /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/;

function parse(args: string[], options: ParseArgsConfig['options'], positionals: number): { values: Values; positionals: string[] } {
  let parsed;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true, tokens: true });
  } catch (err) {
    throw new CliError('usage', (err as Error).message);
  }
  // parseArgs keeps the last of a repeated option; a leftover flag in a script must not silently
  // win (`--suspended true --suspended false` would un-suspend).
  const seen = new Set<string>();
  // Typed loosely: ParseArgsConfig's own option type leaves the option tokens out of the union.
  for (const token of parsed.tokens as ReadonlyArray<{ kind: string; name?: string }>) {
    if (token.kind !== 'option' || token.name === undefined) continue;
    if (seen.has(token.name)) throw new CliError('usage', `option --${token.name} given more than once`);
    seen.add(token.name);
  }
  if (parsed.positionals.length !== positionals) {
    throw new CliError('usage', `expected ${positionals} positional argument(s), got ${parsed.positionals.length}`);
  }
  return { values: parsed.values as Values, positionals: parsed.positionals };
}

function name(kind: string, value: string): string {
  if (!NAME_RE.test(value)) {
    throw new CliError('invalid_value', `${kind} must be 1 to 64 characters (letters, digits, _ . @ -), starting with a letter or digit: "${value}"`);
  }
  return value;
}

function preset(value: string | boolean | undefined): Preset | undefined {
  if (value === undefined) return undefined;
  if (!PRESETS.includes(value as Preset)) throw new CliError('invalid_value', `--preset must be one of ${PRESETS.join(', ')}`);
  return value as Preset;
}

function version(value: string | boolean | undefined): PolicyVersion | undefined {
  if (value === undefined) return undefined;
  if (!POLICY_VERSIONS.includes(value as PolicyVersion)) throw new CliError('invalid_value', `--version must be one of ${POLICY_VERSIONS.join(', ')}`);
  return value as PolicyVersion;
}

function flag(option: string, value: string | boolean | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw new CliError('invalid_value', `--${option} must be true or false`);
}

function required(option: string, value: string | boolean | undefined): string {
  if (typeof value !== 'string') throw new CliError('usage', `--${option} is required`);
  return value;
}

function scopes(value: string | boolean | undefined): string[] {
  if (value === undefined) return [REQUIRED_SCOPE];
  const list = String(value).split(',').map((s) => s.trim()).filter((s) => s !== '');
  for (const s of list) {
    if (!/^[\x21-\x7e]{1,64}$/.test(s)) throw new CliError('invalid_value', `invalid scope "${s}"`);
  }
  return [...new Set(list)];
}

function dayOption(value: string | boolean | undefined, now: Date): string {
  if (value === undefined) return now.toISOString().slice(0, 10);
  const day = String(value);
  const parsed = new Date(`${day}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(parsed.getTime()) || parsed.toISOString().slice(0, 10) !== day) {
    throw new CliError('invalid_value', `--day must be a date YYYY-MM-DD, got "${day}"`);
  }
  return day;
}

const orgJson = (o: OrgRecord): Json => ({
  org: o.org,
  preset: o.preset,
  version: o.version,
  suspended: o.suspended,
  pending_deletion: o.pendingDeletion,
  created_at: o.createdAt,
});

const accountJson = (a: AccountRecord): Json => ({ account: a.account, org: a.org, suspended: a.suspended, created_at: a.createdAt });

const keyJson = (k: KeyRecord): Json => ({
  key_id: k.keyId,
  account: k.account,
  name: k.name,
  scopes: k.scopes,
  preset: k.preset,
  version: k.version,
  revoked: k.revoked,
  created_at: k.createdAt,
});

async function storeCall<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof StoreConflictError) throw new CliError('conflict', err.message);
    if (err instanceof StoreNotFoundError) throw new CliError('not_found', err.message);
    throw err;
  }
}

async function org(ctx: CliContext, verb: string | undefined, args: string[]): Promise<Json> {
  if (verb === 'create') {
    const { values, positionals } = parse(args, { preset: { type: 'string' }, version: { type: 'string' } }, 1);
    const id = name('ORG', positionals[0]!);
    const settings = { preset: preset(values.preset) ?? null, version: version(values.version) ?? null };
    const store = await ctx.store();
    const created = await storeCall(() => store.createOrg(id, settings));
    return orgJson(created);
  }
  if (verb === 'update') {
    const { values, positionals } = parse(
      args,
      { preset: { type: 'string' }, version: { type: 'string' }, suspended: { type: 'string' }, 'pending-deletion': { type: 'string' } },
      1,
    );
    // Every value is checked before the store is asked: a malformed one is exit 2, not "not found".
    const id = name('ORG', positionals[0]!);
    const changes = {
      preset: preset(values.preset),
      version: version(values.version),
      suspended: flag('suspended', values.suspended),
      pendingDeletion: flag('pending-deletion', values['pending-deletion']),
    };
    const updated = await (await ctx.store()).updateOrg(id, changes);
    if (!updated) throw new CliError('not_found', `org "${positionals[0]}" does not exist`);
    return orgJson(updated);
  }
  throw new CliError('usage', 'expected: org create|update ORG');
}

async function account(ctx: CliContext, verb: string | undefined, args: string[]): Promise<Json> {
  if (verb === 'create') {
    const { values, positionals } = parse(args, { org: { type: 'string' } }, 1);
    const id = name('ACCOUNT', positionals[0]!);
    const orgId = name('--org', required('org', values.org));
    const store = await ctx.store();
    return accountJson(await storeCall(() => store.createAccount(id, orgId)));
  }
  if (verb === 'update') {
    const { values, positionals } = parse(args, { suspended: { type: 'string' } }, 1);
    const id = name('ACCOUNT', positionals[0]!);
    const changes = { suspended: flag('suspended', values.suspended) };
    const updated = await (await ctx.store()).updateAccount(id, changes);
    if (!updated) throw new CliError('not_found', `account "${positionals[0]}" does not exist`);
    return accountJson(updated);
  }
  throw new CliError('usage', 'expected: account create|update ACCOUNT');
}

async function key(ctx: CliContext, verb: string | undefined, args: string[]): Promise<Json> {
  if (verb === 'create') {
    const { values } = parse(
      args,
      { account: { type: 'string' }, name: { type: 'string' }, scopes: { type: 'string' }, preset: { type: 'string' }, version: { type: 'string' } },
      0,
    );
    const accountId = name('--account', required('account', values.account));
    const keyName = required('name', values.name);
    // The contract: a key has a name of 1 to 64 characters (code points, not UTF-16 units: an
    // emoji is one character).
    const nameChars = [...keyName].length;
    if (nameChars < 1 || nameChars > 64) throw new CliError('invalid_value', '--name must be 1 to 64 characters');
    const settings = { scopes: scopes(values.scopes), preset: preset(values.preset) ?? null, version: version(values.version) ?? null };
    const store = await ctx.store();
    const owner = await store.getAccount(accountId);
    if (!owner) throw new CliError('not_found', `account "${accountId}" does not exist`);
    const generated = generateKey(await ctx.keyPrefix());
    const created = await storeCall(() =>
      store.createKey({
        keyId: generated.keyId,
        digest: generated.digest,
        account: accountId,
        name: keyName,
        ...settings,
      }),
    );
    // The key is shown this once; only its digest is stored.
    return { key: generated.key, ...keyJson(created), org: owner.org };
  }
  if (verb === 'revoke') {
    const { positionals } = parse(args, {}, 1);
    if (!KEY_ID_PATTERN.test(positionals[0]!)) throw new CliError('invalid_value', `KEY_ID must be key_ and 16 hex characters: "${positionals[0]}"`);
    const revoked = await (await ctx.store()).revokeKey(positionals[0]!);
    if (!revoked) throw new CliError('not_found', `key "${positionals[0]}" does not exist`);
    return { key_id: revoked.keyId, revoked: true };
  }
  throw new CliError('usage', 'expected: key create|revoke');
}

async function endpoint(ctx: CliContext, verb: string | undefined, args: string[]): Promise<Json> {
  if (verb !== 'pause' && verb !== 'resume') throw new CliError('usage', 'expected: endpoint pause|resume forecast|clean');
  const { positionals } = parse(args, {}, 1);
  const target = positionals[0] as Endpoint;
  if (!ENDPOINTS.includes(target)) throw new CliError('invalid_value', `endpoint must be one of ${ENDPOINTS.join(', ')}`);
  await (await ctx.store()).setEndpointPaused(target, verb === 'pause');
  return { endpoint: target, paused: verb === 'pause' };
}

async function usage(ctx: CliContext, args: string[]): Promise<Json> {
  const { values, positionals } = parse(args, { day: { type: 'string' } }, 1);
  const accountId = name('ACCOUNT', positionals[0]!);
  const day = dayOption(values.day, (ctx.now ?? (() => new Date()))());
  const store = await ctx.store();
  if (!(await store.getAccount(accountId))) throw new CliError('not_found', `account "${accountId}" does not exist`);
  const s = await store.usageForDay(accountId, day);
  return {
    account: s.account,
    day: s.day,
    billed_points: s.billedPoints,
    input_data_points: s.inputDataPoints,
    forecast_data_points: s.forecastDataPoints,
    requests: s.requests,
  };
}

/**
 * `--help` or `-h` anywhere, except as an option's value: every option takes one, so
 * `--name -h` is a name that looks like a flag (a usage error, as `--name --foo` is), not a
 * request for help that would skip the command and exit 0.
 */
function asksForHelp(argv: string[]): boolean {
  return argv.some((arg, i) => (arg === '--help' || arg === '-h') && !isOptionAwaitingValue(argv[i - 1]));
}

function isOptionAwaitingValue(arg: string | undefined): boolean {
  return arg !== undefined && arg.startsWith('--') && arg.length > 2 && !arg.includes('=') && arg !== '--help';
}

function isHelp(argv: string[]): boolean {
  return argv.length === 0 || argv[0] === 'help' || asksForHelp(argv);
}

/** Whether a command line, once run, has changed the store: every command but help and `usage`. */
export function changesState(argv: string[]): boolean {
  return !isHelp(argv) && argv[0] !== 'usage';
}

/** Runs one command line (without the program name) and returns the JSON object to print. */
export async function runCommand(ctx: CliContext, argv: string[]): Promise<Json> {
  // Help is an answer like any other: one JSON object on stdout, exit 0.
  if (isHelp(argv)) return { usage: [...USAGE] };
  const [group, verb, ...rest] = argv;
  switch (group) {
    case 'org':
      return org(ctx, verb, rest);
    case 'account':
      return account(ctx, verb, rest);
    case 'key':
      return key(ctx, verb, rest);
    case 'endpoint':
      return endpoint(ctx, verb, rest);
    case 'usage':
      return usage(ctx, argv.slice(1));
    default:
      throw new CliError('usage', `unknown command; usage:\n${USAGE.join('\n')}`);
  }
}
