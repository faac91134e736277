import { type AdmissionReason, admissionReasons, type ResultCellAdmission } from './admission.js';
import { warningsOf } from './derived-warnings.js';
import type { ResultV1 } from './generated/result-v1.js';
import { noVerdictWarnings } from './verdict.js';

/**
 * Each cell of a result with the reasons admission leaves it out of a ranking (admission.ts), read
 * from the document alone: its no-verdict flags, the run's IO_THREADS_OVER_CPUS (derived too, for
 * results that predate the warning), incomplete cells and runs, and a commandstats mismatch. The
 * CLI says from this why it prints no rank.
 */
export function resultCellAdmission(doc: ResultV1): ResultCellAdmission[] {
  const warnings = warningsOf(doc);
  const runWide = warnings.some((w) => w.code === 'IO_THREADS_OVER_CPUS') ? ['IO_THREADS_OVER_CPUS'] : [];
  return doc.cells.map((c) => {
    const flags = noVerdictWarnings(warnings, {
      label: c.label,
      unstable: c.unstable,
      clientBound: c.saturation?.clientBound ?? null,
      interference: c.interference ?? null,
    });
    const reasons: AdmissionReason[] = admissionReasons({
      codes: [...flags, ...runWide],
      incomplete: doc.incomplete || c.incomplete,
      crossCheck: c.crossCheck?.status ?? null,
      ranksServers: true,
    });
    return { label: c.label, reasons, unstable: c.unstable };
  });
}
