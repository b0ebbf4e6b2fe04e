// The time engine through POST /v1/forecast: every timestamp format, the zone rules, freq tokens,
// inference and calendar stepping, as a caller sees them. The same rules are pinned case by case
// in crates/hora-core/tests/data/time_cases.json.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, makeTestApp, type TestApp } from './helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await makeTestApp({ HORA_FORECAST_RPM: '100000' });
});
afterAll(async () => t.close());

type Json = Record<string, any>;

async function forecast(body: Json): Promise<{ status: number; json: Json }> {
  const res = await t.app.inject({
    method: 'POST',
    url: '/v1/forecast',
    headers: { ...bearer(t.key), 'content-type': 'application/json' },
    payload: JSON.stringify(body),
  });
  return { status: res.statusCode, json: res.json() as Json };
}

const DAY = 86_400_000;
const HOUR = 3_600_000;
const pad = (n: number, w = 2) => String(n).padStart(w, '0');
const isoZ = (ms: number) => new Date(ms).toISOString().replace('.000Z', 'Z');
/** Rows of entity `id` from `ds` strings, with a gentle deterministic signal. */
const rows = (ds: string[], id = 'a') => ds.map((s, i) => ({ unique_id: id, ds: s, y: 10 + Math.sin(i / 3) + i / 50 }));
const hourly = (n: number, start: number, fmt: (ms: number) => string) => Array.from({ length: n }, (_, i) => fmt(start + i * HOUR));
const daily = (n: number, start: number, fmt: (d: Date) => string) => Array.from({ length: n }, (_, i) => fmt(new Date(start + i * DAY)));
const ymd = (d: Date) => [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()] as const;
/** The `k`-th month from January 2023 as [year, month]. */
const month = (k: number) => [2023 + Math.floor(k / 12), (k % 12) + 1] as const;
const fds = (j: Json) => j.forecast.map((r: Json) => r.ds);
const series0 = (j: Json) => j.cleaning_report.series[0];
const issueCodes = (j: Json) => series0(j).issues.map((i: Json) => i.code);
const fieldOf = (j: Json) => j.error.details?.errors?.[0]?.field ?? j.error.details?.field;

const JAN1 = Date.UTC(2024, 0, 1);

describe('every timestamp format of the contract is read', () => {
  const cases: { name: string; ds: string[]; freq: string; next: string[]; format: string; extra?: Json }[] = [
    { name: 'ISO 8601 with Z', ds: hourly(24, JAN1, isoZ), freq: 'h', next: [isoZ(JAN1 + 24 * HOUR)], format: 'iso8601' },
    {
      name: 'ISO 8601 with a space, fractional seconds and an offset',
      ds: hourly(24, JAN1, (ms) => new Date(ms + 2 * HOUR).toISOString().slice(0, 19).replace('T', ' ') + '.250+02:00'),
      freq: 'h',
      next: ['2024-01-02T00:00:00Z'],
      format: 'iso8601',
    },
    { name: 'compact YYYYMMDD', ds: daily(20, JAN1, (d) => ymd(d).map((x, i) => pad(x, i ? 2 : 4)).join('')), freq: 'd', next: ['2024-01-21T00:00:00Z'], format: 'compact_date' },
    { name: 'slash YYYY/M/D with a time', ds: daily(20, JAN1, (d) => `${ymd(d).join('/')} 06:00`), freq: 'd', next: ['2024-01-21T06:00:00Z'], format: 'slash_date' },
    {
      name: 'slash YYYY/M/D with a one-digit hour, as spreadsheets write it',
      ds: hourly(24, JAN1, (ms) => `${ymd(new Date(ms)).join('/')} ${new Date(ms).getUTCHours()}:00`),
      freq: 'h',
      next: [isoZ(JAN1 + 24 * HOUR)],
      format: 'slash_date',
    },
    { name: 'D/M/YYYY proven by a day above 12', ds: daily(20, JAN1, (d) => `${ymd(d)[2]}/${ymd(d)[1]}/${ymd(d)[0]}`), freq: 'd', next: ['2024-01-21T00:00:00Z'], format: 'dmy' },
    { name: 'M/D/YYYY proven by a day above 12', ds: daily(20, JAN1, (d) => `${ymd(d)[1]}/${ymd(d)[2]}/${ymd(d)[0]}`), freq: 'd', next: ['2024-01-21T00:00:00Z'], format: 'mdy' },
    { name: 'Unix seconds', ds: hourly(24, JAN1, (ms) => String(ms / 1000)), freq: 'h', next: [isoZ(JAN1 + 24 * HOUR)], format: 'unix_seconds' },
    { name: 'Unix milliseconds', ds: hourly(24, JAN1, (ms) => String(ms)), freq: 'h', next: [isoZ(JAN1 + 24 * HOUR)], format: 'unix_milliseconds' },
    { name: 'year-month YYYY-MM', ds: Array.from({ length: 20 }, (_, k) => `${month(k)[0]}-${pad(month(k)[1])}`), freq: 'MS', next: ['2024-09-01T00:00:00Z'], format: 'year_month' },
    { name: 'year-month YYYY/M', ds: Array.from({ length: 20 }, (_, k) => `${month(k)[0]}/${month(k)[1]}`), freq: 'MS', next: ['2024-09-01T00:00:00Z'], format: 'year_month_slash' },
    { name: 'year-month YYYYMM', ds: Array.from({ length: 20 }, (_, k) => `${month(k)[0]}${pad(month(k)[1])}`), freq: 'MS', next: ['2024-09-01T00:00:00Z'], format: 'year_month_compact' },
    { name: 'Chinese year-month', ds: Array.from({ length: 20 }, (_, k) => `${month(k)[0]}年${month(k)[1]}月`), freq: 'MS', next: ['2024-09-01T00:00:00Z'], format: 'chinese_year_month' },
    { name: 'Chinese date with a time', ds: daily(20, JAN1, (d) => `${ymd(d)[0]}年${ymd(d)[1]}月${ymd(d)[2]}日 08:30`), freq: 'd', next: ['2024-01-21T08:30:00Z'], format: 'chinese_date' },
  ];
  for (const c of cases) {
    it(`${c.name}: inferred ${c.freq}, forecast continues in UTC, format reported`, async () => {
      const { status, json } = await forecast({ series: rows(c.ds), h: c.next.length, ...c.extra });
      expect(status, JSON.stringify(json.error)).toBe(200);
      expect(json.freq).toBe(c.freq);
      expect(fds(json)).toEqual(c.next);
      const formatIssue = series0(json).issues.find((i: Json) => i.code === 'timestamp_format');
      if (c.format === 'iso8601') expect(formatIssue).toBeUndefined();
      else expect(formatIssue?.format).toBe(c.format);
    });
  }

  it('D/M or M/D that the data cannot prove is AMBIGUOUS_DATE_FORMAT; options.ds_format resolves it', async () => {
    const ds = Array.from({ length: 20 }, (_, k) => `01/${month(k)[1]}/${month(k)[0]}`);
    const refused = await forecast({ series: rows(ds), h: 1 });
    expect(refused.status).toBe(422);
    expect(refused.json.error.code).toBe('AMBIGUOUS_DATE_FORMAT');
    const dmy = await forecast({ series: rows(ds), h: 1, options: { ds_format: 'dmy' } });
    expect(dmy.status).toBe(200);
    expect([dmy.json.freq, fds(dmy.json)]).toEqual(['MS', ['2024-09-01T00:00:00Z']]);
  });
});

describe('bad timestamps are a 422 naming the row', () => {
  const base = hourly(24, JAN1, isoZ);

  it('an unreadable ds is refused with the body (step 3), before the preset, the model and the quota', async () => {
    const series: Json[] = rows(base);
    series[3]!.ds = 'garbage';
    for (const extra of [{}, { model: 'nope' }, { h: 1500 }, { options: { cleaning: { preset: 'bogus' } } }]) {
      const { status, json } = await forecast({ series, h: 1, ...extra });
      expect([status, json.error.code, fieldOf(json)], JSON.stringify(extra)).toEqual([422, 'VALIDATION_ERROR', 'series[3].ds']);
    }
  });
  const bad: [string, unknown][] = [
    ['an empty string', ''],
    ['February 30', '2024-02-30T00:00:00Z'],
    ['24:00', '2024-01-01T24:00:00Z'],
    ['offset +25:00', '2024-01-01T05:00:00+25:00'],
    ['year 0', '0000-01-01T05:00:00Z'],
    ['year 99999', '99999-01-01T05:00:00Z'],
    ['a 10 kB string', '2'.repeat(10_240)],
    ['another format inside the entity', '20240101'],
    ['ds as a number', 20240101],
    ['ds as null', null],
  ];
  for (const [name, value] of bad) {
    it(`${name} at row 5 is VALIDATION_ERROR on series[5].ds`, async () => {
      const series: Json[] = rows(base);
      series[5]!.ds = value;
      const { status, json } = await forecast({ series, h: 1 });
      expect(status).toBe(422);
      expect(json.error.code).toBe('VALIDATION_ERROR');
      expect(fieldOf(json)).toBe('series[5].ds');
    });
  }

  it('the reason quotes at most 64 bytes of a long ds, and names a five-digit year as a year', async () => {
    const series: Json[] = rows(base);
    series[5]!.ds = '2'.repeat(10_240);
    const long = await forecast({ series, h: 1 });
    expect(long.json.error.message.length).toBeLessThan(300);
    expect(long.json.error.details.errors[0].message).toBe(`"${'2'.repeat(64)}"… (10240 bytes) is too long to be a timestamp`);
    series[5]!.ds = '99999-01-01T05:00:00Z';
    const year = await forecast({ series, h: 1 });
    expect(year.json.error.details.errors[0].message).toBe('"99999-01-01T05:00:00Z" has a year outside 1 to 9999');
  });

  it('every unreadable ds of every entity is listed, at most 10, and the message names the first as for any invalid body', async () => {
    const series: Json[] = [...rows(base, 'a'), ...rows(base, 'b')];
    series[1]!.ds = 'garbage';
    series[30]!.ds = '2024-02-30T00:00:00Z';
    const { status, json } = await forecast({ series, h: 1 });
    expect([status, json.error.code]).toEqual([422, 'VALIDATION_ERROR']);
    expect(json.error.details.errors).toEqual([
      { field: 'series[1].ds', message: '"garbage" is not in a supported timestamp format' },
      { field: 'series[30].ds', message: expect.stringMatching(/^"2024-02-30T00:00:00Z" /) },
    ]);
    expect(json.error.message).toBe('The request body is invalid: series[1].ds "garbage" is not in a supported timestamp format.');
    for (let k = 0; k < 24; k++) series[k]!.ds = `nope${k}`;
    const many = await forecast({ series, h: 1 });
    expect(many.json.error.details.errors.map((e: Json) => e.field)).toEqual(Array.from({ length: 10 }, (_, k) => `series[${k}].ds`));
    // Ten history errors fill the list: a bad future stamp is not looked for.
    const full = await forecast({ series: series.map((r) => ({ ...r, x: 1 })), h: 1, future_covariates: [{ unique_id: 'b', ds: 'later', x: 2 }] });
    expect(full.json.error.details.errors.map((e: Json) => e.field)).toEqual(Array.from({ length: 10 }, (_, k) => `series[${k}].ds`));
    // Future rows: the same listing under their own paths.
    const future = [0, 1, 2].map((k) => ({ unique_id: 'a', ds: k === 1 ? '2024-01-02T00:00:00Z' : `later${k}`, x: k }));
    const withFuture = await forecast({ series: rows(base).map((r) => ({ ...r, x: 1 })), h: 1, future_covariates: future });
    expect(withFuture.json.error.details.errors.map((e: Json) => [e.field, e.message])).toEqual([
      ['future_covariates[0].ds', '"later0" is not in a supported timestamp format'],
      ['future_covariates[2].ds', '"later2" is not in a supported timestamp format'],
    ]);
    // A future row's errors are named in its own array, and the stamp is quoted as sent, even
    // when it reads like another array's path.
    const named = await forecast({
      series: rows(base).map((r) => ({ ...r, x: 1 })),
      h: 1,
      future_covariates: ['2024-01-02T00:00:00Z', '20240102', 'series[1].ds'].map((ds) => ({ unique_id: 'a', ds, x: 2 })),
    });
    expect(named.json.error.details.errors).toEqual([
      { field: 'future_covariates[1].ds', message: '"20240102" is written in another format than series[0].ds; one timestamp format per entity' },
      { field: 'future_covariates[2].ds', message: '"series[1].ds" is not in a supported timestamp format' },
    ]);
    // An unreadable history stamp does not hide another entity's unreadable future stamp.
    const both: Json[] = [...rows(base, 'a'), ...rows(base, 'b')].map((r) => ({ ...r, x: 1 }));
    both[3]!.ds = 'garbage';
    const mixed = await forecast({ series: both, h: 1, future_covariates: [{ unique_id: 'b', ds: 'not-a-stamp', x: 2 }] });
    expect(mixed.json.error.details.errors.map((e: Json) => e.field)).toEqual(['series[3].ds', 'future_covariates[0].ds']);
  });

  it("future rows are held to the format their entity's history was written in, one format per entity", async () => {
    const history = rows(base).map((r) => ({ ...r, x: 1 }));
    for (const ds of ['20240102', '1704153600', '2024/01/02']) {
      for (const route of [forecast, (body: Json) => forecast({ ...body, options: { cleaning: { preset: 'raw' } }, freq: 'h' })]) {
        const { status, json } = await route({ series: history, h: 1, future_covariates: [{ unique_id: 'a', ds, x: 2 }] });
        expect([status, json.error.code], ds).toEqual([422, 'VALIDATION_ERROR']);
        expect(json.error.details.errors, ds).toEqual([{ field: 'future_covariates[0].ds', message: `"${ds}" is written in another format than series[0].ds; one timestamp format per entity` }]);
      }
    }
    // Written as the history was, future rows are read; a compact history takes compact future rows.
    expect((await forecast({ series: history, h: 1, future_covariates: [{ unique_id: 'a', ds: '2024-01-02T01:00:00Z', x: 2 }] })).status).toBe(200);
    const compact = Array.from({ length: 28 }, (_, k) => ({ unique_id: 'c', ds: `202401${String(k + 1).padStart(2, '0')}`, y: k % 7, x: 1 }));
    expect((await forecast({ series: compact, h: 1, future_covariates: [{ unique_id: 'c', ds: '20240129', x: 2 }] })).status).toBe(200);
    const iso = await forecast({ series: compact, h: 1, future_covariates: [{ unique_id: 'c', ds: '2024-01-29', x: 2 }] });
    expect(iso.json.error.details.errors).toEqual([{ field: 'future_covariates[0].ds', message: '"2024-01-29" is written in another format than series[0].ds; one timestamp format per entity' }]);
  });

  it('an unknown zone name is VALIDATION_ERROR on options.timezone', async () => {
    const { status, json } = await forecast({ series: rows(base), h: 1, options: { timezone: 'Mars/Olympus' } });
    expect([status, json.error.code, fieldOf(json)]).toEqual([422, 'VALIDATION_ERROR', 'options.timezone']);
  });

  it('an unknown zone name is refused with the body (step 3): under the raw preset, and before the horizon check', async () => {
    const raw = await forecast({ series: rows(base), h: 1, freq: 'h', options: { timezone: 'Mars/Olympus', cleaning: { preset: 'raw' } } });
    expect([raw.status, raw.json.error.code, fieldOf(raw.json)]).toEqual([422, 'VALIDATION_ERROR', 'options.timezone']);
    const far = await forecast({ series: rows(base), h: 1500, options: { timezone: 'Mars/Olympus' } });
    expect([far.status, far.json.error.code, fieldOf(far.json)]).toEqual([422, 'VALIDATION_ERROR', 'options.timezone']);
    const known = await forecast({ series: rows(base), h: 1, freq: 'h', options: { timezone: 'Europe/Berlin', cleaning: { preset: 'raw' } } });
    expect(known.status).toBe(200);
  });
});

describe('time zones', () => {
  it('naive stamps without a zone are UTC with the naive_timestamps_assumed_utc info issue', async () => {
    const { json } = await forecast({ series: rows(hourly(24, JAN1, (ms) => isoZ(ms).slice(0, 19))), h: 1 });
    expect(fds(json)).toEqual([isoZ(JAN1 + 24 * HOUR)]);
    expect(issueCodes(json)).toContain('naive_timestamps_assumed_utc');
    expect(series0(json).timezone).toMatchObject({ used: 'UTC', source: 'default_utc', naive_rows: 24, explicit_rows: 0 });
  });

  it('explicit offsets win over options.timezone and are listed once each', async () => {
    const ds = hourly(24, JAN1, (ms) => new Date(ms + 2 * HOUR).toISOString().slice(0, 19) + '+02:00');
    ds[23] = '2024-01-01T23:00:00Z';
    const { json } = await forecast({ series: rows(ds), h: 1, options: { timezone: 'America/New_York' } });
    expect(fds(json)).toEqual(['2024-01-02T00:00:00Z']);
    expect(series0(json).timezone).toMatchObject({ source: 'explicit_offset', explicit_rows: 24, naive_rows: 0, explicit_offsets: ['+02:00', '+00:00'] });
    expect(issueCodes(json)).not.toContain('naive_timestamps_assumed_utc');
  });

  it("naive future stamps are read as UTC even when the history's one offset gives the grid an Etc/GMT zone", async () => {
    // Local midnights at +02:00 (22:00Z the day before), one a day for 30 days.
    const ds = daily(30, JAN1, (d) => d.toISOString().slice(0, 10) + 'T00:00:00+02:00');
    const history = rows(ds).map((r) => ({ ...r, x: 1 }));
    const next = ['2024-01-31', '2024-02-01'];
    const naive = await forecast({ series: history, h: 2, future_covariates: next.map((d) => ({ unique_id: 'a', ds: `${d}T00:00:00`, x: 2 })) });
    expect(fds(naive.json)).toEqual(['2024-01-30T22:00:00Z', '2024-01-31T22:00:00Z']);
    expect(series0(naive.json).timezone).toMatchObject({ used: 'Etc/GMT-2', source: 'explicit_offset', naive_rows: 0, explicit_rows: 30 });
    expect(naive.json.warnings).toContainEqual(expect.objectContaining({ code: 'future_rows_unused', count: 2, stamps: ['2024-01-31T00:00:00Z', '2024-02-01T00:00:00Z'] }));
    expect(series0(naive.json).issues).toContainEqual({ code: 'naive_timestamps_assumed_utc', count: 2, level: 'info' });
    const offset = await forecast({ series: history, h: 2, future_covariates: next.map((d) => ({ unique_id: 'a', ds: `${d}T00:00:00+02:00`, x: 2 })) });
    expect(offset.json.warnings ?? []).not.toContainEqual(expect.objectContaining({ code: 'future_rows_unused' }));
    // The model reads no covariate; what matters is that the future values were found.
    expect(naive.json.model_input[0].covariates).toContainEqual(expect.objectContaining({ name: 'x', reason: 'future_values_missing' }));
    expect(offset.json.model_input[0].covariates).toContainEqual(expect.objectContaining({ name: 'x', role: 'future', reason: 'model_unsupported' }));
  });

  it('Unix time is never re-zoned by options.timezone', async () => {
    const { json } = await forecast({ series: rows(hourly(24, JAN1, (ms) => String(ms / 1000))), h: 1, options: { timezone: 'Asia/Tokyo' } });
    expect(fds(json)).toEqual([isoZ(JAN1 + 24 * HOUR)]);
  });

  it('monthly data in America/New_York keeps its local midnight across DST', async () => {
    const ds = Array.from({ length: 26 }, (_, k) => `${month(k)[0]}-${pad(month(k)[1])}-01`);
    const { json } = await forecast({ series: rows(ds), h: 3, options: { timezone: 'America/New_York' } });
    expect(json.freq).toBe('MS');
    expect(fds(json)).toEqual(['2025-03-01T05:00:00Z', '2025-04-01T04:00:00Z', '2025-05-01T04:00:00Z']);
    expect(series0(json).timezone).toMatchObject({ used: 'America/New_York', source: 'option', naive_rows: 26 });
    // Naive stamps read in options.timezone assumed nothing: no UTC-fallback issue.
    expect(issueCodes(json)).not.toContain('naive_timestamps_assumed_utc');
  });

  it('Berlin month starts exported in UTC with Z step on options.timezone, as the same instants in Unix time do', async () => {
    // Local midnight on the 1st: 23:00Z the day before in winter, 22:00Z in summer.
    const starts = Array.from({ length: 24 }, (_, k) => {
      const [y, m] = month(k);
      return Date.UTC(y, m - 1, 1) - (m >= 4 && m <= 10 ? 2 : 1) * HOUR;
    });
    const want = ['2024-12-31T23:00:00Z', '2025-01-31T23:00:00Z', '2025-02-28T23:00:00Z'];
    for (const ds of [starts.map(isoZ), starts.map((ms) => String(ms / 1000))]) {
      const { json } = await forecast({ series: rows(ds), h: 3, options: { timezone: 'Europe/Berlin' } });
      expect(json.freq, ds[0]).toBe('MS');
      expect(fds(json)).toEqual(want);
      expect(series0(json).timezone).toMatchObject({ used: 'Europe/Berlin', source: 'explicit_offset' });
    }
  });

  it('daily data at local midnight in Europe/Berlin steps over the spring and autumn DST changes', async () => {
    const ds = daily(30, Date.UTC(2024, 2, 1), (d) => d.toISOString().slice(0, 10));
    const spring = await forecast({ series: rows(ds), h: 2, options: { timezone: 'Europe/Berlin' } });
    expect(spring.json.freq).toBe('d');
    expect(fds(spring.json)).toEqual(['2024-03-30T23:00:00Z', '2024-03-31T22:00:00Z']);
    const ds2 = daily(30, Date.UTC(2024, 8, 27), (d) => d.toISOString().slice(0, 10));
    const autumn = await forecast({ series: rows(ds2), h: 2, options: { timezone: 'Europe/Berlin' } });
    expect(fds(autumn.json)).toEqual(['2024-10-26T22:00:00Z', '2024-10-27T23:00:00Z']);
  });

  it('monthly data written at one half-hour offset steps on that offset: month starts stay month starts', async () => {
    const ds = Array.from({ length: 26 }, (_, k) => `${month(k)[0]}-${pad(month(k)[1])}-01T00:00:00+05:30`);
    const { status, json } = await forecast({ series: rows(ds), h: 2 });
    expect(status).toBe(200);
    expect(json.freq).toBe('MS');
    // Local midnight +05:30 on 1 March and 1 April 2025.
    expect(fds(json)).toEqual(['2025-02-28T18:30:00Z', '2025-03-31T18:30:00Z']);
    expect(series0(json).timezone).toMatchObject({ used: '+05:30', source: 'explicit_offset', explicit_offsets: ['+05:30'] });
  });
});

describe('frequency strings', () => {
  const hourlyRows = rows(hourly(24, JAN1, isoZ));
  for (const token of ['h', 'H', '60min', '60T', '60m', '3600s', '3600S']) {
    it(`${token} is accepted on hourly data and echoed as sent`, async () => {
      const { status, json } = await forecast({ series: hourlyRows, h: 2, freq: token });
      expect(status, JSON.stringify(json.error)).toBe(200);
      expect(json.freq).toBe(token);
      expect(fds(json)).toEqual([isoZ(JAN1 + 24 * HOUR), isoZ(JAN1 + 25 * HOUR)]);
    });
  }

  for (const token of ['hourly', 'HS', 'M@0', 'M@32', '0h', 'MIN', '2B']) {
    it(`${token} is FREQ_UNSUPPORTED`, async () => {
      const { status, json } = await forecast({ series: hourlyRows, h: 1, freq: token });
      expect([status, json.error.code]).toEqual([422, 'FREQ_UNSUPPORTED']);
    });
  }

  it('M@31 falls on each month end, leap day included', async () => {
    // Month ends from June 2022 to January 2024 (day 31 clamped to each month's length).
    const ds = Array.from({ length: 20 }, (_, k) => new Date(Date.UTC(2022, 6 + k, 0)).toISOString().slice(0, 10));
    const { json } = await forecast({ series: rows(ds), h: 3, freq: 'M@31' });
    expect(json.freq).toBe('M@31');
    expect(fds(json)).toEqual(['2024-02-29T00:00:00Z', '2024-03-31T00:00:00Z', '2024-04-30T00:00:00Z']);
  });

  it('a fixed day of month is inferred as M@15', async () => {
    const ds = Array.from({ length: 20 }, (_, k) => `${month(k)[0]}-${pad(month(k)[1])}-15`);
    const { json } = await forecast({ series: rows(ds), h: 2 });
    expect(json.freq).toBe('M@15');
    expect(json.data_quality.inferred_freq).toBe('M@15');
    expect(fds(json)).toEqual(['2024-09-15T00:00:00Z', '2024-10-15T00:00:00Z']);
  });

  it('quarter ends are inferred as QE and year ends step through a leap year with YE', async () => {
    const qe = Array.from({ length: 20 }, (_, k) => new Date(Date.UTC(2019 + Math.floor((3 * k + 3) / 12), (3 * k + 3) % 12, 0)).toISOString().slice(0, 10));
    const q = await forecast({ series: rows(qe), h: 2 });
    expect([q.json.freq, fds(q.json)]).toEqual(['QE', ['2024-03-31T00:00:00Z', '2024-06-30T00:00:00Z']]);
    const ye = Array.from({ length: 20 }, (_, k) => `${2003 + k}-12-31`);
    const y = await forecast({ series: rows(ye), h: 2, freq: 'A' });
    expect([y.json.freq, fds(y.json)]).toEqual(['A', ['2023-12-31T00:00:00Z', '2024-12-31T00:00:00Z']]);
  });

  it('business days are inferred from weekday-only data and forecast stamps skip the weekend', async () => {
    const ds = daily(40, JAN1, (d) => d.toISOString().slice(0, 10)).filter((s) => ![0, 6].includes(new Date(s).getUTCDay()));
    expect(ds.at(-1)).toBe('2024-02-09'); // a Friday
    const { json } = await forecast({ series: rows(ds), h: 3 });
    expect(json.freq).toBe('B');
    expect(fds(json)).toEqual(['2024-02-12T00:00:00Z', '2024-02-13T00:00:00Z', '2024-02-14T00:00:00Z']);
  });

  it('with business_days, daily data sent as D steps as B: weekends are not gaps, forecast stamps skip them, freq is echoed D', async () => {
    // docs/cleaning-policy.md, business_days: "Daily data (D, sent or inferred) steps as B:
    // weekends are not gaps; freq is still echoed as sent."
    const ds = daily(40, JAN1, (d) => d.toISOString().slice(0, 10)).filter((s) => ![0, 6].includes(new Date(s).getUTCDay()));
    expect(ds.at(-1)).toBe('2024-02-09'); // a Friday
    const { status, json } = await forecast({ series: rows(ds), h: 3, freq: 'D', options: { cleaning: { business_days: true } } });
    expect(status, JSON.stringify(json).slice(0, 300)).toBe(200);
    expect(json.freq).toBe('D');
    expect(fds(json)).toEqual(['2024-02-12T00:00:00Z', '2024-02-13T00:00:00Z', '2024-02-14T00:00:00Z']);
    // No weekend slot was inserted, so none was filled.
    expect(json.data_quality).toMatchObject({ imputed_points: 0, missing_ratio: 0 });
  });

  it('business days are inferred from 2026-11 on; under 2026-10 the same weekday data is daily with weekend gaps', async () => {
    const ds = daily(40, JAN1, (d) => d.toISOString().slice(0, 10)).filter((s) => ![0, 6].includes(new Date(s).getUTCDay()));
    for (const version of ['2026-11', '2026-12', '2026-13']) {
      const { json } = await forecast({ series: rows(ds), h: 1, options: { cleaning: { version } } });
      expect([version, json.freq]).toEqual([version, 'B']);
    }
    // Weekends are then 2 of every 7 slots missing: gaps plus nulls past 10 % block under 2026-10.
    const old = await forecast({ series: rows(ds), h: 1, options: { cleaning: { version: '2026-10' } } });
    expect([old.status, old.json.error?.code]).toEqual([422, 'SERIES_DISCONTINUOUS']);
    expect(old.json.error.details.cleaning_report.series[0].freq.inferred).toBe('d');
  });

  it('B is FREQ_UNSUPPORTED under cleaning policy 2026-10', async () => {
    const ds = daily(40, JAN1, (d) => d.toISOString().slice(0, 10)).filter((s) => ![0, 6].includes(new Date(s).getUTCDay()));
    const { status, json } = await forecast({ series: rows(ds), h: 1, freq: 'B', options: { cleaning: { version: '2026-10' } } });
    expect([status, json.error.code]).toEqual([422, 'FREQ_UNSUPPORTED']);
  });
});

describe('frequency inference', () => {
  it('is robust to gaps and duplicates and reports its confidence', async () => {
    const ds = hourly(48, JAN1, isoZ).filter((_, i) => i !== 10 && i !== 30);
    ds.splice(5, 0, ds[5]!);
    const { status, json } = await forecast({ series: rows(ds), h: 1 });
    expect(status, JSON.stringify(json.error)).toBe(200);
    expect(json.freq).toBe('h');
    expect(series0(json).freq).toMatchObject({ source: 'inferred', canonical: 'h' });
    expect(series0(json).freq.confidence).toBeGreaterThan(0.9);
  });

  it('is FREQ_INFERENCE_FAILED when more than 10 % of stamps are off the grid', async () => {
    const ds = hourly(30, JAN1, (ms) => isoZ(ms));
    for (const i of [3, 8, 13, 18]) ds[i] = isoZ(JAN1 + i * HOUR + 17 * 60_000);
    const { status, json } = await forecast({ series: rows(ds), h: 1 });
    expect([status, json.error.code]).toEqual([422, 'FREQ_INFERENCE_FAILED']);
    // The report's blocking[] names the entity and the reason, like every cleaning-group error.
    expect(json.error.details.cleaning_report.blocking).toEqual([
      expect.objectContaining({ unique_id: 'a', code: 'FREQ_INFERENCE_FAILED', kind: 'frequency', reason: 'freq_inference_failed' }),
    ]);
  });

  it('is FREQ_INFERENCE_FAILED naming every entity when none has enough stamps to show a frequency', async () => {
    const { status, json } = await forecast({ series: [...rows(hourly(2, JAN1, isoZ), 'a'), ...rows(hourly(2, JAN1, isoZ), 'b')], h: 1 });
    expect([status, json.error.code]).toEqual([422, 'FREQ_INFERENCE_FAILED']);
    const blocking = json.error.details.cleaning_report.blocking as Array<{ unique_id: string; reason: string }>;
    expect(blocking.map((b) => [b.unique_id, b.reason])).toEqual([
      ['a', 'too_few_stamps'],
      ['b', 'too_few_stamps'],
    ]);
  });

  it('is FREQ_INFERENCE_FAILED naming the entity when a sent freq leaves more than 10 % of its stamps off the grid', async () => {
    const ds = hourly(30, JAN1, (ms) => isoZ(ms));
    for (const i of [3, 8, 13, 18]) ds[i] = isoZ(JAN1 + i * HOUR + 17 * 60_000);
    const { status, json } = await forecast({ series: rows(ds), h: 1, freq: 'h' });
    expect([status, json.error.code]).toEqual([422, 'FREQ_INFERENCE_FAILED']);
    expect(json.error.details.cleaning_report.blocking).toEqual([
      expect.objectContaining({ unique_id: 'a', reason: 'freq_inference_failed', off_grid_share: json.error.details.off_grid_share }),
    ]);
  });

  it('is FREQ_AMBIGUOUS when entities infer different frequencies', async () => {
    const a = rows(hourly(24, JAN1, isoZ), 'a');
    const b = rows(daily(24, JAN1, (d) => d.toISOString().slice(0, 10)), 'b');
    const { status, json } = await forecast({ series: [...a, ...b], h: 1 });
    expect([status, json.error.code]).toEqual([422, 'FREQ_AMBIGUOUS']);
    // docs/time.md: the distinct candidates, and what each entity inferred.
    expect(json.error.details.candidates).toEqual(['d', 'h']);
    expect(json.error.details.entities).toEqual([
      { unique_id: 'a', freq: 'h' },
      { unique_id: 'b', freq: 'd' },
    ]);
    const blocking = json.error.details.cleaning_report.blocking as Array<{ unique_id: string; reason: string; freq: string }>;
    expect(blocking.map((x) => [x.unique_id, x.reason, x.freq])).toEqual([
      ['a', 'freq_ambiguous', 'h'],
      ['b', 'freq_ambiguous', 'd'],
    ]);
  });

  it('a stamp its offset moves past 9999-12-31 in UTC is VALIDATION_ERROR on that row', async () => {
    const { status, json } = await forecast({ series: rows(['9999-12-31T12:00:00-12:00']), h: 1, freq: 'h' });
    expect([status, json.error.code]).toEqual([422, 'VALIDATION_ERROR']);
    expect(json.error.details.errors[0].field).toBe('series[0].ds');
  });

  it('a tiny input implying a huge grid is POINTS_EXCEEDED when splitting is off', async () => {
    const ds = hourly(20, JAN1, isoZ);
    ds.push('2099-01-01T00:00:00Z');
    const { status, json } = await forecast({ series: rows(ds), h: 1, freq: 's', options: { gap_split_min_steps: 0 } });
    expect([status, json.error.code]).toEqual([422, 'POINTS_EXCEEDED']);
    // With the automatic split the latest segment, the one row of 2099, is all that is kept.
    const split = await forecast({ series: rows(ds), h: 1, freq: 's' });
    expect([split.status, split.json.error.code]).toEqual([422, 'SERIES_TOO_SHORT']);
    expect(split.json.error.details.cleaning_report.decisions[0]).toMatchObject({ id: 'gap.split', count: 20 });
  });
});

describe('calendar edges found by audit', () => {
  const monthEnd = (y: number, m: number) => new Date(Date.UTC(y, m, 0)).getUTCDate();

  it('a last stamp moved by a DST gap does not drag the forecast off the wall clock', async () => {
    // Month ends at 02:30 Berlin time; the last, 2024-03-31, falls in the spring-forward gap.
    const ds = Array.from({ length: 24 }, (_, k) => {
      const [y, m] = [2022 + Math.floor((k + 3) / 12), ((k + 3) % 12) + 1];
      return `${y}-${pad(m)}-${pad(monthEnd(y, m))}T02:30:00`;
    });
    expect(ds.at(-1)).toBe('2024-03-31T02:30:00');
    const { status, json } = await forecast({ series: rows(ds), h: 2, freq: 'ME', options: { timezone: 'Europe/Berlin' } });
    expect(status, JSON.stringify(json).slice(0, 300)).toBe(200);
    // 02:30 in summer time (UTC+2) is 00:30Z, not the 01:30Z of the shifted last stamp.
    expect(fds(json)).toEqual(['2024-04-30T00:30:00Z', '2024-05-31T00:30:00Z']);
  });

  it('a local day the zone skipped whole (Pacific/Apia, 2011-12-30) is neither a gap nor a repeated forecast stamp', async () => {
    const days = (from: number, n: number) => daily(n, from, (d) => d.toISOString().slice(0, 10));
    // Every day that existed in Apia from 2011-12-10 to 2012-01-19: 2011-12-30 did not.
    const history = days(Date.UTC(2011, 11, 10), 41).filter((s) => s !== '2011-12-30');
    const full = await forecast({ series: rows(history), h: 1, freq: 'D', options: { timezone: 'Pacific/Apia' } });
    expect(full.status, JSON.stringify(full.json).slice(0, 300)).toBe(200);
    expect(full.json.data_quality.missing_ratio).toBe(0);
    expect(full.json.model_input[0].context_points).toBe(40);
    expect(full.json.cleaning_report.decisions.map((d: Json) => d.id)).not.toContain('grid.regrid');
    expect(full.json.cleaning_report.decisions.map((d: Json) => d.id)).not.toContain('gap.impute');
    // A forecast across the skipped day: h distinct stamps, one per local day that exists.
    const before = await forecast({ series: rows(days(Date.UTC(2011, 10, 28), 30)), h: 7, freq: 'D', options: { timezone: 'Pacific/Apia' } });
    expect(before.status).toBe(200);
    const stamps: string[] = fds(before.json);
    expect(stamps).toHaveLength(7);
    expect(new Set(stamps).size).toBe(7);
    expect(stamps.slice(0, 4)).toEqual(['2011-12-28T10:00:00Z', '2011-12-29T10:00:00Z', '2011-12-30T10:00:00Z', '2011-12-31T10:00:00Z']);
  });

  it('under B the business day the zone skipped whole (Apia, Friday 2011-12-30) is neither a slot nor a forecast stamp', async () => {
    const weekdays = (from: number, n: number) =>
      daily(n, from, (d) => d.toISOString().slice(0, 10)).filter((s) => ![0, 6].includes(new Date(`${s}T00:00:00Z`).getUTCDay()));
    const opts = { timezone: 'Pacific/Apia' };
    // Every business day that existed from 2011-11-21 to 2012-01-20.
    const across = await forecast({ series: rows(weekdays(Date.UTC(2011, 10, 21), 61).filter((s) => s !== '2011-12-30')), h: 2, freq: 'B', options: opts });
    expect(across.status, JSON.stringify(across.json).slice(0, 300)).toBe(200);
    expect(across.json.data_quality.missing_ratio).toBe(0);
    expect(across.json.cleaning_report.decisions.map((d: Json) => d.id)).not.toContain('gap.impute');
    // History to Thursday 2011-12-29: the next business days are Monday 2 January on (UTC-10 before, UTC+14 after).
    const before = await forecast({ series: rows(weekdays(Date.UTC(2011, 10, 21), 39)), h: 3, freq: 'B', options: opts });
    expect(before.status, JSON.stringify(before.json).slice(0, 300)).toBe(200);
    expect(fds(before.json)).toEqual(['2012-01-01T10:00:00Z', '2012-01-02T10:00:00Z', '2012-01-03T10:00:00Z']);
  });

  it('a forecast that would pass 9999-12-31 is VALIDATION_ERROR on h, never a short answer', async () => {
    const years = Array.from({ length: 20 }, (_, k) => `${9970 + k}-01-01T00:00:00Z`);
    const short = await forecast({ series: rows(years), h: 20, freq: 'YS' });
    expect([short.status, short.json.error?.code, fieldOf(short.json)]).toEqual([422, 'VALIDATION_ERROR', 'h']);
    const fits = await forecast({ series: rows(years), h: 10, freq: 'YS' });
    expect(fits.status).toBe(200);
    expect(fds(fits.json).at(-1)).toBe('9999-01-01T00:00:00Z');
    const days = daily(20, Date.UTC(9999, 11, 1), (d) => isoZ(d.getTime()));
    const raw = await forecast({ series: rows(days), h: 20, freq: 'D', options: { cleaning: { preset: 'raw' } } });
    expect([raw.status, raw.json.error?.code, fieldOf(raw.json)]).toEqual([422, 'VALIDATION_ERROR', 'h']);
  });
});
