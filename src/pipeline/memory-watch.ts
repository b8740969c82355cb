// The pipeline process's memory watch (max_rss_mb): its RSS is read on a timer and fed to the input
// hold (input-hold.ts); the hold's start and end are logged once each, with the level, RSS and budget.
import type { Logger } from '../logging/logger.js';
import type { InputHold } from './input-hold.js';
import type { Periodic } from './periodic.js';

/** Often enough to hold input before a burst of it fills the rest of the budget; a read costs µs. */
const MEMORY_SAMPLE_MS = 500;

export function watchMemory(periodic: Periodic, hold: InputHold, log: Logger): void {
  if (!hold.monitored) return;
  periodic.every(MEMORY_SAMPLE_MS, async () => {
    const change = hold.observe(process.memoryUsage.rss());
    const sample = hold.sample;
    if (!change || !sample) return;
    const fields = { memory_pressure: sample.levelName, rss_mb: sample.rssMb, budget_mb: sample.budgetMb };
    const measured = `memory pressure ${sample.levelName} (${sample.rssMb} of ${sample.budgetMb} MB)`;
    if (change === 'held')
      log.warn(fields, `${measured}: input held until memory drops below 85 % of the budget (max_rss_mb)`);
    else log.info(fields, `${measured}: input released`);
  });
}
