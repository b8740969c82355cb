import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { useEffect, useRef } from 'react';

export interface Series {
  label: string;
  color: string;
}

interface Props {
  title: string;
  /** x: Unix seconds; then one array per series. */
  data: readonly (readonly number[])[];
  series: readonly Series[];
  unit?: string;
}

/** A time series chart (uPlot): made once, fed new data as it comes. */
export function Chart({ title, data, series, unit = '' }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot>(undefined);
  useEffect(() => {
    if (!host.current) return;
    const p = new uPlot(
      {
        title,
        width: Math.max(host.current.clientWidth, 280),
        height: 180,
        series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2 }))],
        axes: [{}, { values: (_u, ticks) => ticks.map((t) => `${formatNumber(t)}${unit}`), size: 70 }],
        legend: { live: false },
      },
      data as uPlot.AlignedData,
      host.current,
    );
    plot.current = p;
    const resize = new ResizeObserver(() => {
      if (host.current) p.setSize({ width: Math.max(host.current.clientWidth, 280), height: 180 });
    });
    resize.observe(host.current);
    return () => {
      resize.disconnect();
      p.destroy();
    };
    // Made once per title and series; data flows in below.
  }, [title, series, unit]);
  useEffect(() => {
    plot.current?.setData(data as uPlot.AlignedData);
  }, [data]);
  // The latest reading in words beside the picture: what a glance (or a screen reader) wants.
  const latest = data[1]?.at(-1);
  return (
    <figure className="chart" aria-label={title}>
      <div ref={host} data-chart={title} />
      <figcaption className="chart-now">
        {latest === undefined ? 'no data yet' : `now ${formatNumber(latest)}${unit}`}
      </figcaption>
    </figure>
  );
}

export function formatNumber(n: number): string {
  const abs = Math.abs(n);
  if (abs >= 1e9) return `${(n / 1e9).toFixed(1)}G`;
  if (abs >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (abs >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return Number.isInteger(n) ? String(n) : n.toFixed(2);
}
