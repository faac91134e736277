/**
 * Migration 11: a result's neighbours by machine kind (identity.ts, migration 9), not by CPU model
 * name: four VM kinds share the name "AMD EPYC". The same shape as migration 5's indexes, keyed on
 * machine_key; those stay for the read API's cpuModel filter.
 */
export const NEIGHBOUR_INDEXES = `
CREATE INDEX results_by_machine_version ON results (
  machine_key, server_product, server_version, received_at, id, machine_label, cpu_model, retracted_at
);
CREATE INDEX results_by_machine ON results (
  machine_key, received_at, id, server_product, server_version, machine_label, cpu_model, retracted_at
);
CREATE INDEX results_by_version_machine ON results (
  server_product, server_version, received_at, id, machine_key, machine_label, cpu_model, retracted_at
);
`;
