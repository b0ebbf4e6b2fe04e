// Issue 2's target: a forecast request of 100 entities × 512 points, h = 48, end to end through a
// listening server, with the time per stage, beside JSON.parse of the same body.
import { Bench } from 'tinybench';
import { forecastBody } from './fixtures.js';
import { stageRows, startServer, timedPost } from './server.js';

export async function run(): Promise<string> {
  const body = forecastBody(100, 512, 48);
  const server = await startServer();
  try {
    const stages: Record<string, number[]> = {};
    const request = timedPost(server, '/v1/forecast', body, stages);
    // Correctness first: 4,800 forecast rows.
    const check = JSON.parse((await request()).toString('utf8'));
    if (check.forecast.length !== 4800) throw new Error(`expected 4800 rows, got ${check.forecast.length}`);
    for (const k of Object.keys(stages)) stages[k] = [];

    const bench = new Bench({ time: 4000, warmupTime: 500 });
    bench.add('POST /v1/forecast (100 × 512, h = 48)', request);
    bench.add('JSON.parse of the same body', () => JSON.parse(body));
    await bench.run();
    const [req, parse] = bench.tasks.map((t) => t.result as { latency: { p50: number }; period: number });
    const rows = [
      `| whole request, client to client | ${req.latency.p50.toFixed(1)} ms |`,
      ...stageRows(stages),
      `| JSON.parse of the same body (for scale) | ${parse.latency.p50.toFixed(1)} ms |`,
    ];
    return [
      '### Forecast request: 100 entities × 512 points, h = 48 (target: under 60 ms at the median)',
      '',
      `Body: ${(body.length / 1e6).toFixed(2)} MB. Medians over ${bench.tasks[0].runs} requests; stages from the server's Server-Timing header.`,
      '',
      '| measure | median |',
      '|---|---|',
      ...rows,
      '',
    ].join('\n');
  } finally {
    await server.stop();
  }
}
