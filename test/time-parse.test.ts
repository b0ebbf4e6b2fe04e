// The TypeScript parse path and the Rust engine read the shared table of cases the same way
// (crates/hora-core/tests/data/time_cases.json; the Rust side runs it in tests/time_cases.rs).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromEngineError, type ApiError } from '../src/errors.js';
import { parseDsColumn } from '../src/native.js';
import { DsParseError, parseDsJs } from '../src/time/parse.js';

interface ParseCase {
  name: string;
  ds: string[];
  tz: string | null;
  utc?: string[];
  format?: string;
  error?: string;
  field?: string;
  explicit_offsets?: string[];
  js: boolean;
}

const table = JSON.parse(
  readFileSync(new URL('../crates/hora-core/tests/data/time_cases.json', import.meta.url), 'utf8'),
) as { parse: ParseCase[] };
const jsCases = table.parse.filter((c) => c.js);

/** Micros of `YYYY-MM-DDTHH:MM:SS[.ffffff]Z`, read with Date.parse plus the fraction. */
function micros(s: string): number {
  const frac = s.length > 20 ? Number(s.slice(20, 26).padEnd(6, '0')) : 0;
  return Date.parse(s.slice(0, 19) + 'Z') * 1000 + frac;
}

/** The addon's refusal of `ds`, read as the service reads any engine error. */
function rustError(ds: Buffer, tz: string | null): ApiError {
  const out = parseDsColumn(ds, tz);
  if (!out.error) throw new Error('expected the addon to refuse the input');
  expect(out.parsed).toBeUndefined();
  return fromEngineError(out.error);
}

/** The addon's parse of `ds`, which must succeed. */
function rustParse(ds: Buffer, tz: string | null): NonNullable<ReturnType<typeof parseDsColumn>['parsed']> {
  const out = parseDsColumn(ds, tz);
  if (!out.parsed) throw new Error(`expected the addon to parse the input: ${out.error?.code} ${out.error?.message}`);
  expect(out.error).toBeUndefined();
  return out.parsed;
}

describe('the shared table of timestamp cases', () => {
  it('marks enough cases for the JS path to be a meaningful cross-check', () => {
    expect(jsCases.length).toBeGreaterThan(30);
  });

  for (const c of jsCases) {
    it(`JS path and addon agree: ${c.name}`, () => {
      const buf = Buffer.from(c.ds.join('\n'));
      if (c.error) {
        let jsErr: unknown;
        try {
          parseDsJs(c.ds, c.tz);
        } catch (e) {
          jsErr = e;
        }
        expect(jsErr).toBeInstanceOf(DsParseError);
        expect((jsErr as DsParseError).field).toBe(c.field);
        const rust = rustError(buf, c.tz);
        expect(rust.code).toBe(c.error);
        const errors = rust.details?.errors as { field: string }[] | undefined;
        expect(errors?.[0]?.field ?? rust.details?.field).toBe(c.field);
        return;
      }
      const want = c.utc!.map(micros);
      const js = parseDsJs(c.ds, c.tz);
      const rust = rustParse(buf, c.tz);
      expect(Array.from(js.instants)).toEqual(want);
      expect(Array.from(rust.instants)).toEqual(want);
      expect(js.format).toBe(c.format);
      expect(rust.format).toBe(c.format);
      expect(js.explicitOffsets).toEqual(rust.explicitOffsets);
      expect([js.naiveRows, js.explicitRows]).toEqual([rust.naiveRows, rust.explicitRows]);
    });
  }

  it('an unknown zone name is refused by both paths as options.timezone', () => {
    expect(() => parseDsJs(['2024-01-01'], 'Mars/Olympus')).toThrow(DsParseError);
    const rust = rustError(Buffer.from('2024-01-01'), 'Mars/Olympus');
    expect(rust.code).toBe('VALIDATION_ERROR');
    expect((rust.details?.errors as { field: string }[])[0]!.field).toBe('options.timezone');
  });
});
