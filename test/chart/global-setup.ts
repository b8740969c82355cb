// vitest global setup of the `chart` project: builds Helm from the Go module proxy once (or reuses the
// cached binary), before any test file renders the chart.
import { helm } from './helm.js';

export default function setup(): void {
  const bin = helm();
  process.stderr.write(`chart: helm at ${bin}\n`);
}
