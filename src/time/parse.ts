// The plain-TypeScript parse path for ISO 8601 and the number-looking / compact stamps, written
// the way a careful JavaScript service would (a regular expression per shape, Intl for zones).
// It exists to show what the Rust addon buys; both paths run the same table of cases
// (crates/hora-core/tests/data/time_cases.json) and must agree on it: instants, formats and
// error codes. It stops at the first bad row, where the service lists up to 10.

import { WallConverter, isKnownZone } from './zone.js';

export type JsFormat =
  | 'iso8601'
  | 'year_month'
  | 'compact_date'
  | 'year_month_compact'
  | 'unix_seconds'
  | 'unix_milliseconds';

export interface JsParsed {
  /** Microseconds since the Unix epoch, UTC (exact for years 1685 to 2254). */
  instants: Float64Array;
  format: JsFormat;
  naiveRows: number;
  explicitRows: number;
  explicitOffsets: string[];
}

/** A rejected `ds`: the contract code and the body field it names. */
export class DsParseError extends Error {
  constructor(
    readonly code: 'VALIDATION_ERROR',
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

interface Lexed {
  format: JsFormat;
  /** Wall-clock milliseconds of the whole seconds (read as if UTC), or the instant for Unix time. */
  ms: number;
  /** Sub-millisecond-free fraction of the second, in microseconds (0 to 999,999). */
  fracMicros: number;
  /** Offset in seconds east of UTC; null when naive. */
  offset: number | null;
}

const ISO =
  /^(\d{4})-(\d{2})(?:-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?)?)?$/;
const DIGITS = /^\d+$/;
const UNIX_MIN_S = 946_684_800;
const UNIX_MAX_S = 4_133_980_799;
const MS_PER_DAY = 86_400_000;

function daysInMonth(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/** Days since 1970-01-01 (H. Hinnant's algorithm, as in the Rust engine). */
function daysFromCivil(y0: number, m: number, d: number): number {
  const y = m <= 2 ? y0 - 1 : y0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const mp = m > 2 ? m - 3 : m + 9;
  const doy = Math.floor((153 * mp + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

function checkDate(y: number, m: number, d: number): string | null {
  if (y < 1 || y > 9999) return 'has a year outside 1 to 9999';
  if (m < 1 || m > 12) return 'has a month outside 1 to 12';
  if (d < 1 || d > daysInMonth(y, m)) return 'has a day that does not exist in its month';
  return null;
}

function parseOffset(s: string): number | string {
  if (s === 'Z' || s === 'z') return 0;
  const sign = s[0] === '-' ? -1 : 1;
  const hh = Number(s.slice(1, 3));
  const mm = s.length > 3 ? Number(s.slice(-2)) : 0;
  if (mm > 59 || hh * 60 + mm > 18 * 60) return 'has an offset beyond ±18:00';
  return sign * (hh * 3600 + mm * 60);
}

function lexNumber(s: string): Lexed | string {
  const n = s.length;
  if (n === 6 || n === 8) {
    const y = Number(s.slice(0, 4));
    const m = Number(s.slice(4, 6));
    const d = n === 8 ? Number(s.slice(6, 8)) : 1;
    const bad = checkDate(y, m, d);
    if (bad) return bad;
    const format = n === 8 ? 'compact_date' : 'year_month_compact';
    return { format, ms: daysFromCivil(y, m, d) * MS_PER_DAY, fracMicros: 0, offset: null };
  }
  if (n === 9 || n === 10 || n === 12 || n === 13) {
    const v = Number(s);
    const scale = n <= 10 ? 1 : 1000;
    if (v < UNIX_MIN_S * scale || v > (UNIX_MAX_S + 1) * scale - 1) {
      return 'is a Unix time outside the years 2000 to 2100';
    }
    const format = n <= 10 ? 'unix_seconds' : 'unix_milliseconds';
    return { format, ms: scale === 1 ? v * 1000 : v, fracMicros: 0, offset: 0 };
  }
  return 'is a number that is neither YYYYMM, YYYYMMDD nor Unix seconds or milliseconds';
}

/** One stamp; a string result is the reason it was refused. */
function lex(s: string): Lexed | string {
  if (s.length === 0) return 'is empty';
  if (s.length > 64) return 'is too long to be a timestamp';
  if (DIGITS.test(s)) return lexNumber(s);
  const m = ISO.exec(s);
  if (m === null) return 'is not an ISO 8601 or compact timestamp';
  const y = Number(m[1]);
  const mo = Number(m[2]);
  if (m[3] === undefined) {
    const bad = checkDate(y, mo, 1);
    return bad ?? { format: 'year_month', ms: daysFromCivil(y, mo, 1) * MS_PER_DAY, fracMicros: 0, offset: null };
  }
  const d = Number(m[3]);
  const bad = checkDate(y, mo, d);
  if (bad) return bad;
  const hh = m[4] === undefined ? 0 : Number(m[4]);
  const mi = m[5] === undefined ? 0 : Number(m[5]);
  const ss = m[6] === undefined ? 0 : Number(m[6]);
  if (hh > 23) return 'has an hour above 23';
  if (mi > 59 || ss > 59) return 'has minutes or seconds above 59';
  const fracMicros = m[7] === undefined ? 0 : Number(m[7].slice(0, 6).padEnd(6, '0'));
  let offset: number | null = null;
  if (m[8] !== undefined) {
    const o = parseOffset(m[8]);
    if (typeof o === 'string') return o;
    offset = o;
  }
  const ms = daysFromCivil(y, mo, d) * MS_PER_DAY + hh * 3_600_000 + mi * 60_000 + ss * 1000;
  return { format: 'iso8601', ms, fracMicros, offset };
}

function formatOffset(secs: number): string {
  const a = Math.abs(secs);
  const hh = String(Math.floor(a / 3600)).padStart(2, '0');
  const mm = String(Math.floor(a / 60) % 60).padStart(2, '0');
  return `${secs < 0 ? '-' : '+'}${hh}:${mm}`;
}

/**
 * Parses one entity's `ds` values (row i is `series[i]`) in `timezone` (IANA; UTC when omitted).
 * Throws `DsParseError` naming the first bad row.
 */
export function parseDsJs(ds: readonly string[], timezone?: string | null): JsParsed {
  const zone = timezone ?? 'UTC';
  if (!isKnownZone(zone)) {
    throw new DsParseError('VALIDATION_ERROR', 'options.timezone', `unknown time zone ${zone}`);
  }
  const conv = new WallConverter(zone);
  const instants = new Float64Array(ds.length);
  const offsets: string[] = [];
  let format: JsFormat | null = null;
  let naiveRows = 0;
  let explicitRows = 0;
  const repeated = new Set<number>();
  for (let i = 0; i < ds.length; i++) {
    const l = lex(ds[i]!);
    if (typeof l === 'string') {
      throw new DsParseError('VALIDATION_ERROR', `series[${i}].ds`, `${JSON.stringify(ds[i])} ${l}`);
    }
    if (format === null) format = l.format;
    else if (l.format !== format) {
      throw new DsParseError('VALIDATION_ERROR', `series[${i}].ds`, `${JSON.stringify(ds[i])} is written in another format than series[0].ds`);
    }
    let ms: number;
    if (l.offset !== null) {
      explicitRows++;
      ms = l.format.startsWith('unix') ? l.ms : l.ms - l.offset * 1000;
      const text = formatOffset(l.offset);
      if (!offsets.includes(text)) offsets.push(text);
    } else {
      naiveRows++;
      const [t, kind, later] = conv.convert(l.ms);
      ms = t;
      // Sent again inside a fall-back: the repeated hour's second pass (docs/time.md).
      if (kind === 'repeated') {
        if (repeated.has(l.ms)) ms = later;
        else repeated.add(l.ms);
      }
    }
    instants[i] = ms * 1000 + l.fracMicros;
  }
  if (format === null) throw new DsParseError('VALIDATION_ERROR', 'series', 'no rows');
  return { instants, format, naiveRows, explicitRows, explicitOffsets: offsets };
}
