import type { TimelineSample } from '../sim/simulation.ts';
import { downsample } from './downsample.ts';
import { formatSeconds } from './terminal-chart.ts';

/**
 * The seed's figure for a run: three lanes over time — arrivals; applied concurrency with the cap; head age with
 * the target.
 */
export interface SvgChartInput {
  readonly title: string;
  readonly timeline: readonly TimelineSample[];
  readonly cap: number;
  readonly targetAgeSeconds: number;
}

const WIDTH = 960;
const LANE = 150;
const GAP = 40;
const LEFT = 70;
const RIGHT = 20;
const TOP = 60;

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function svgChart(input: SvgChartInput): string {
  const points = downsample(input.timeline, 900);
  const end = Math.max(1e-9, input.timeline[input.timeline.length - 1]?.time ?? 1);
  const x = (t: number) => LEFT + (t / end) * (WIDTH - LEFT - RIGHT);
  const lanes = [
    {
      label: 'arrivals / s',
      values: points.map((p) => p.arrivalsPerSecond),
      reference: undefined,
      format: (v: number) => v.toFixed(0),
      color: '#4c78a8',
    },
    {
      label: 'applied concurrency (orange) · concurrent executions at ticks (purple)',
      values: points.map((p) => p.applied),
      second: points.map((p) => p.executions),
      reference: { value: input.cap, label: `cap ${input.cap}` },
      format: (v: number) => v.toFixed(0),
      color: '#f58518',
      // Concurrency changes at ticks and holds between them: a staircase, not a slope.
      steps: true,
    },
    {
      label: 'head age',
      values: points.map((p) => p.headAgeSeconds),
      reference: { value: input.targetAgeSeconds, label: `target ${formatSeconds(input.targetAgeSeconds)}` },
      format: formatSeconds,
      color: '#54a24b',
    },
  ];
  const height = TOP + lanes.length * (LANE + GAP);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" font-family="sans-serif" font-size="12">`,
    // A screen reader's name for the picture (and what an image viewer shows as its title).
    `<title>${escapeXml(input.title)}</title>`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${LEFT}" y="22" font-size="15" font-weight="bold">${escapeXml(input.title)}</text>`,
  ];
  lanes.forEach((lane, i) => {
    const top = TOP + i * (LANE + GAP);
    const second = 'second' in lane ? lane.second : undefined;
    const max = Math.max(1e-9, ...lane.values, ...(second ?? []), (lane.reference?.value ?? 0) * 1.1);
    const y = (v: number) => top + LANE - (v / max) * LANE;
    parts.push(`<text x="${LEFT}" y="${top - 6}" font-weight="bold">${escapeXml(lane.label)}</text>`);
    parts.push(
      `<line x1="${LEFT}" y1="${top + LANE}" x2="${WIDTH - RIGHT}" y2="${top + LANE}" stroke="#999"/>`,
    );
    parts.push(`<line x1="${LEFT}" y1="${top}" x2="${LEFT}" y2="${top + LANE}" stroke="#999"/>`);
    parts.push(
      `<text x="${LEFT - 6}" y="${top + 10}" text-anchor="end">${escapeXml(lane.format(max))}</text>`,
    );
    parts.push(`<text x="${LEFT - 6}" y="${top + LANE}" text-anchor="end">0</text>`);
    if (lane.reference) {
      const ry = y(lane.reference.value).toFixed(1);
      parts.push(
        `<line x1="${LEFT}" y1="${ry}" x2="${WIDTH - RIGHT}" y2="${ry}" stroke="#d62728" stroke-dasharray="6 4"/>`,
      );
      parts.push(
        `<text x="${WIDTH - RIGHT}" y="${Number(ry) - 4}" text-anchor="end" fill="#d62728">${escapeXml(lane.reference.label)}</text>`,
      );
    }
    const path = points
      .map((p, j) => {
        const here = `${x(p.time).toFixed(1)},${y(lane.values[j] as number).toFixed(1)}`;
        if (j === 0) return `M${here}`;
        const step =
          'steps' in lane ? `L${x(p.time).toFixed(1)},${y(lane.values[j - 1] as number).toFixed(1)} ` : '';
        return `${step}L${here}`;
      })
      .join(' ');
    parts.push(`<path d="${path}" fill="none" stroke="${lane.color}" stroke-width="1.5"/>`);
    if (second !== undefined) {
      const line = points
        .map((p, j) => `${j === 0 ? 'M' : 'L'}${x(p.time).toFixed(1)},${y(second[j] as number).toFixed(1)}`)
        .join(' ');
      parts.push(`<path d="${line}" fill="none" stroke="#7b4ea3" stroke-width="1"/>`);
    }
  });
  const axisY = TOP + lanes.length * (LANE + GAP) - GAP + 16;
  for (let k = 0; k <= 6; k++) {
    const t = (end * k) / 6;
    parts.push(
      `<text x="${x(t).toFixed(1)}" y="${axisY}" text-anchor="middle">${escapeXml(formatSeconds(t))}</text>`,
    );
  }
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
