// The open alerts by severity per day (GET /v1/metrics/alerts) as a line chart: an SVG drawn at the width it is given
// (its text stays legible on a phone), one line per severity, each told apart without colour by its dash pattern and
// the marker at its end, and labelled there in words with its last value. The SVG is one image to assistive technology
// (role="img", named by a summary in words); the legend is text, and the same numbers are a table under a <details>.
// Text only: the values are numbers and dates the app formats.
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import {
  dateTicks,
  shortDate,
  spreadLabels,
  TREND_STYLES,
  trendSummary,
  valueTicks,
  type AlertTrend,
} from '../metrics';
import type { Severity } from '../types';
import { SEVERITIES } from '../types';
import { ListTable } from './list';

/** A severity's marker, centred on (x, y). */
function Marker({ severity, x, y }: { severity: Severity; x: number; y: number }) {
  const cls = `trend-mark trend-${severity}`;
  switch (TREND_STYLES[severity].marker) {
    case 'circle':
      return <circle class={cls} cx={x} cy={y} r={4.5} />;
    case 'square':
      return <rect class={cls} x={x - 4} y={y - 4} width={8} height={8} />;
    case 'triangle':
      return <polygon class={cls} points={`${x},${y - 5} ${x + 5},${y + 4} ${x - 5},${y + 4}`} />;
    case 'diamond':
      return <polygon class={cls} points={`${x},${y - 5.5} ${x + 5.5},${y} ${x},${y + 5.5} ${x - 5.5},${y}`} />;
  }
}

/** A severity's line and marker as the legend shows them (decoration: the words beside it say the same). */
function Sample({ severity }: { severity: Severity }) {
  return (
    <svg class="trend-sample" width="44" height="14" viewBox="0 0 44 14" aria-hidden="true" focusable="false">
      <line
        class={`trend-line trend-${severity}`}
        x1={2}
        y1={7}
        x2={32}
        y2={7}
        stroke-dasharray={TREND_STYLES[severity].dash || undefined}
      />
      <Marker severity={severity} x={37} y={7} />
    </svg>
  );
}

export function TrendChart({ trend }: { trend: AlertTrend }) {
  const box = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(720);
  // drawn at the width of its box, so that its text keeps its size (a scaled drawing would shrink it on a phone)
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    const measure = () => setWidth(Math.max(240, Math.floor(el.clientWidth)));
    measure();
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    return () => ro.disconnect();
  }, []);
  const narrow = width < 560;
  const height = narrow ? 210 : 250;
  const m = { top: 12, right: narrow ? 88 : 104, bottom: 26, left: 40 };
  const pw = width - m.left - m.right;
  const ph = height - m.top - m.bottom;
  const pts = trend.points;
  const ticks = valueTicks(Math.max(0, ...pts.flatMap((p) => SEVERITIES.map((s) => p.open[s]))));
  const top = ticks[ticks.length - 1];
  const x = (i: number) => m.left + (pts.length <= 1 ? pw : (i * pw) / (pts.length - 1));
  const y = (v: number) => m.top + ph - (v / top) * ph;
  const last = pts[pts.length - 1];
  const ends = SEVERITIES.map((s) => y(last?.open[s] ?? 0));
  const labels = spreadLabels(ends, 15, m.top + 4, m.top + ph);
  const xEnd = x(pts.length - 1);

  return (
    <div class="trend" ref={box}>
      <svg
        class="trend-chart"
        role="img"
        aria-label={trendSummary(trend)}
        width={width}
        height={height}
        viewBox={`0 0 ${width} ${height}`}
      >
        {ticks.map((t) => (
          <g key={t}>
            <line class="trend-grid" x1={m.left} x2={m.left + pw} y1={y(t)} y2={y(t)} />
            <text class="trend-axis" x={m.left - 6} y={y(t) + 4} text-anchor="end">
              {t}
            </text>
          </g>
        ))}
        {dateTicks(pts.length, Math.max(2, Math.floor(pw / 72))).map((i, k, all) => (
          <text
            key={i}
            class="trend-axis"
            x={x(i)}
            y={height - 8}
            // the first and last dates keep inside the plot's edges
            text-anchor={
              all.length > 1 && k === 0 ? 'start' : k === all.length - 1 && all.length > 1 ? 'end' : 'middle'
            }
          >
            {shortDate(pts[i].date)}
          </text>
        ))}
        {SEVERITIES.map((s) => (
          <polyline
            key={s}
            class={`trend-line trend-${s}`}
            points={pts.map((p, i) => `${x(i).toFixed(1)},${y(p.open[s]).toFixed(1)}`).join(' ')}
            stroke-dasharray={TREND_STYLES[s].dash || undefined}
          />
        ))}
        {last
          ? SEVERITIES.map((s, k) => (
              <g key={s}>
                {Math.abs(labels[k] - ends[k]) > 1 ? (
                  <line class="trend-leader" x1={xEnd + 6} y1={ends[k]} x2={xEnd + 13} y2={labels[k]} />
                ) : null}
                <Marker severity={s} x={xEnd} y={ends[k]} />
                <text class="trend-label" x={xEnd + 15} y={labels[k] + 4}>
                  {s} {last.open[s]}
                </text>
              </g>
            ))
          : null}
      </svg>
      <ul class="trend-legend" aria-label="Legend">
        {SEVERITIES.map((s) => (
          <li key={s}>
            <Sample severity={s} />
            <span>
              {s[0].toUpperCase() + s.slice(1)}: {TREND_STYLES[s].words}
            </span>
          </li>
        ))}
      </ul>
      <details class="trend-numbers">
        <summary>The chart's numbers, day by day</summary>
        <ListTable
          caption="Open alerts by severity per day"
          columns={['Day', 'Critical', 'High', 'Medium', 'Low', 'Suppressed', 'Opened', 'Fixed']}
        >
          {pts.map((p) => (
            <tr key={p.date}>
              <th scope="row">{p.date}</th>
              {SEVERITIES.map((s) => (
                <td key={s}>{p.open[s]}</td>
              ))}
              <td>{p.suppressed}</td>
              <td>{p.opened}</td>
              <td>{p.fixed}</td>
            </tr>
          ))}
        </ListTable>
      </details>
    </div>
  );
}
