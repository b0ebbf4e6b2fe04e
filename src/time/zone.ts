// Wall clock -> instant in an IANA zone with Intl only, under the engine's DST rule:
// a repeated local time takes its earlier instant (the later one comes with it, for the caller
// that has seen that time before), a skipped one is shifted forward by the gap.

const MS_PER_DAY = 86_400_000;

/** Offset (ms east of UTC) of `zone` at the instant `t` (ms), read through Intl. */
function offsetReader(zone: string): (t: number) => number {
  const fmt = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    era: 'short',
  });
  return (t: number) => {
    const p: Record<string, string> = {};
    for (const part of fmt.formatToParts(t)) p[part.type] = part.value;
    const year = p.era === 'BC' || p.era === 'B' ? 1 - Number(p.year) : Number(p.year);
    const wall = Date.UTC(year, Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
    // Date.UTC maps years 0-99 to 1900-1999; fix them up.
    const fixed = year >= 0 && year < 100 ? new Date(wall).setUTCFullYear(year) : wall;
    return fixed - (t - (((t % 1000) + 1000) % 1000));
  };
}

export type LocalKind = 'unique' | 'repeated' | 'skipped';

/** An instant, how its wall-clock time mapped, and the other instant when it was repeated (else the same). */
export type Converted = [instant: number, kind: LocalKind, later: number];

/** Converts wall-clock milliseconds (read as if UTC) to instants, caching whole local days. */
export class WallConverter {
  private readonly offsetAt: ((t: number) => number) | null;
  private day = Number.NaN;
  private dayOffset: number | null = null;

  constructor(zone: string) {
    this.offsetAt = zone === 'UTC' ? null : offsetReader(zone);
  }

  /** Instant (ms) of a wall-clock time (ms). */
  convert(wall: number): Converted {
    if (this.offsetAt === null) return [wall, 'unique', wall];
    const day = Math.floor(wall / MS_PER_DAY);
    if (day !== this.day) {
      this.day = day;
      this.dayOffset = this.wholeDayOffset(day);
    }
    if (this.dayOffset !== null) return [wall - this.dayOffset, 'unique', wall - this.dayOffset];
    return this.fromWall(wall);
  }

  private wholeDayOffset(day: number): number | null {
    const start = day * MS_PER_DAY;
    const end = start + MS_PER_DAY - 1000;
    const [ts, ks] = this.fromWall(start);
    const [te, ke] = this.fromWall(end);
    return ks === 'unique' && ke === 'unique' && start - ts === end - te ? start - ts : null;
  }

  private fromWall(wall: number): Converted {
    const offsetAt = this.offsetAt!;
    const before = offsetAt(wall - MS_PER_DAY);
    const after = offsetAt(wall + MS_PER_DAY);
    const tb = wall - before;
    const ta = wall - after;
    const okBefore = offsetAt(tb) === before;
    const okAfter = offsetAt(ta) === after;
    if (before === after) return [tb, 'unique', tb];
    if (okBefore && okAfter) return [Math.min(tb, ta), 'repeated', Math.max(tb, ta)];
    if (okBefore) return [tb, 'unique', tb];
    if (okAfter) return [ta, 'unique', ta];
    return [tb, 'skipped', tb];
  }
}

/** True when `zone` names an IANA zone Intl knows. */
export function isKnownZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
