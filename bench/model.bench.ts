// Issue 5's target: the addon's model call alone on 100 series × 512 points, h = 48, median.
import { loadModel, parseRequest, runForecast, runForecastCleaning, type ForecastParts } from '../src/native.js';
import { DEFAULT_VERSION } from '../src/policy/table.js';
import { forecastBody } from './fixtures.js';
import { median } from './server.js';

export async function run(): Promise<string> {
  const model = loadModel();
  const parsed = await parseRequest(Buffer.from(forecastBody(100, 512, 48)));
  const params = (flipAverage: boolean) => ({
    h: 48,
    freq: 'h',
    level: [80],
    quantilePolicy: 'nearest',
    flipAverage,
    nonnegative: 'auto',
    cleaning: { preset: 'default', version: DEFAULT_VERSION, cleanSeries: true, cleanExog: true },
  });
  // Correctness first: a timing of a run that answered wrongly would mean nothing.
  const checkAnswer = (parts: ForecastParts): void => {
    const rows = JSON.parse(parts.forecastJson.toString('utf8')) as Array<{ y_hat: number; intervals: { '80': { lo: number; hi: number } } }>;
    const finite = rows.every(({ y_hat, intervals }) => Number.isFinite(y_hat) && intervals['80'].lo <= y_hat && y_hat <= intervals['80'].hi);
    if (rows.length !== 100 * 48 || !finite) throw new Error('the model call did not give 48 finite, ordered steps for each of the 100 series');
  };
  const lines: string[] = [];
  for (const flip of [true, false]) {
    const times: number[] = [];
    for (let i = 0; i < 30; i++) {
      const cleaning = await runForecastCleaning(parsed, params(flip));
      if (cleaning.error) throw new Error(cleaning.error.message);
      const out = await runForecast(cleaning, params(flip));
      if (out.error) throw new Error(out.error.message);
      if (i === 0) checkAnswer(out.parts!);
      if (i >= 3) times.push(out.parts!.timings.inferenceMs);
    }
    lines.push(`| flip_average ${flip} (${flip ? 200 : 100} rows per graph run) | ${median(times).toFixed(1)} ms |`);
  }
  return [
    `### Model call alone: 100 series × 512 points, h = 48 (target: under 50 ms at the median)`,
    '',
    `Model ${model.name}, recipe ${model.recipeHash.slice(0, 12)}, native horizon ${model.nativeHorizon}. Median of 27 runs after 3 warm-up runs, inference stage only.`,
    '',
    '| configuration | median |',
    '|---|---|',
    ...lines,
    '',
  ].join('\n');
}
