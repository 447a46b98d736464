/**
 * A bar chart drawn by hand in SVG. Written here rather than taken from a chart library: the page
 * needs two plain bar charts, and any charting package would outweigh this whole page many times
 * over for them.
 */

/** One bar: its label (a day) and value. */
export interface Bar {
  label: string;
  value: number;
}

const WIDTH = 600;
const HEIGHT = 180;
const AXIS = 20;

/** Bars of `data` scaled to the largest value, described for screen readers and with its numbers as a table. */
export function BarChart({
  title,
  data,
  format,
}: {
  title: string;
  data: Bar[];
  /** a value as a person reads it, with its unit */
  format(v: number): string;
}) {
  const max = Math.max(0, ...data.map((d) => d.value));
  const total = data.reduce((n, d) => n + d.value, 0);
  const top = data.reduce<Bar | null>((best, d) => (best === null || d.value > best.value ? d : best), null);
  const slot = data.length ? WIDTH / data.length : WIDTH;
  const gap = Math.min(4, slot * 0.2);
  const plot = HEIGHT - AXIS;
  const summary =
    data.length === 0
      ? `${title}: no days`
      : max === 0
        ? `${title}: nothing over ${data.length} days, ${data[0]!.label} to ${data[data.length - 1]!.label}`
        : `${title}: ${data.length} days from ${data[0]!.label} to ${data[data.length - 1]!.label}; highest ${format(
            top!.value,
          )} on ${top!.label}; latest ${format(data[data.length - 1]!.value)}`;
  return (
    <figure className="bar-chart">
      <figcaption>
        <strong>{title}</strong> <span className="muted">highest {format(max)}</span>
      </figcaption>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-label={summary} preserveAspectRatio="none">
        <line x1={0} x2={WIDTH} y1={plot} y2={plot} className="axis" />
        {data.map((d, i) => {
          const h = max > 0 ? (d.value / max) * (plot - 4) : 0;
          return (
            <rect
              key={d.label}
              x={i * slot + gap / 2}
              y={plot - h}
              width={Math.max(1, slot - gap)}
              height={h}
              className="bar"
            >
              <title>{`${d.label}: ${format(d.value)}`}</title>
            </rect>
          );
        })}
      </svg>
      <div className="chart-ends muted" aria-hidden="true">
        <span>{data[0]?.label}</span>
        <span>{data[data.length - 1]?.label}</span>
      </div>
      {/* In a hidden block: a table ignores the 1 px height of .visually-hidden and would stretch the page. */}
      <div className="visually-hidden">
        <table>
          <caption>{title}, per day</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">{title}</th>
            </tr>
          </thead>
          <tbody>
            {data.map((d) => (
              <tr key={d.label}>
                <th scope="row">{d.label}</th>
                <td>{format(d.value)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="visually-hidden">Total {format(total)}.</p>
    </figure>
  );
}
